// Package connect4 is Connect Four as a Banmen variant, written as a plugin
// author writes one: in a module of its own (example.com/connect4) that
// depends only on the sdk module, github.com/banmen/banmen/sdk. Two players
// drop discs into seven columns of a board six high; a disc falls to the
// lowest free cell, and four of one colour in a row, column or diagonal win.
//
// A disc comes from an unlimited supply: each move is a drop (sdk.DropMove)
// onto the cell where the disc lands, and the board plays it when that cell
// is chosen. The variant ships its own texts (texts/*.json) and looks
// (looks/*.svg). See docs/plugins.md in the Banmen repository.
package connect4

import (
	"context"
	"embed"
	"strings"

	"github.com/banmen/banmen/sdk"
)

// ID is the variant's key, in URLs and in every sealed state.
const ID = "connect4"

const (
	files = 7
	ranks = 6
	cells = files * ranks
)

// Variant is Connect Four. It keeps nothing between calls.
type Variant struct{}

// Capability guards: a Suggest whose signature drifted from sdk.Suggester's
// would otherwise compile and leave the variant without a computer player.
var (
	_ sdk.Variant   = Variant{}
	_ sdk.Suggester = Variant{}
)

var (
	//go:embed texts/*.json
	textFS embed.FS
	texts  = sdk.MustLoadTexts(textFS, "texts")
	//go:embed looks/card.svg
	card string
	//go:embed looks/disc.svg
	disc string
)

// kinds are the discs of seats 0 (Red) and 1 (Yellow).
var kinds = [2]string{"R", "Y"}

// Describe tells the host everything it shows without knowing the rules.
func (Variant) Describe() sdk.Description {
	return sdk.Description{
		ID: ID, Name: "Connect Four", NameKey: "variant.connect4", RulesVersion: "1",
		Texts: texts, Card: card,
		Seats: []sdk.SeatInfo{
			{Name: "Red", NameKey: "seat.connect4.red", Color: "#c0392b"},
			{Name: "Yellow", NameKey: "seat.connect4.yellow", Color: "#d4a017"},
		},
		Board: sdk.Geometry{Files: files, Ranks: ranks, Upright: true,
			FileLabels: []string{"a", "b", "c", "d", "e", "f", "g"}},
		Pieces: []sdk.PieceKind{
			{ID: "R", Name: "red disc", NameKey: "piece.connect4.red", Glyphs: []string{"●"}, Drawing: []string{disc}},
			{ID: "Y", Name: "yellow disc", NameKey: "piece.connect4.yellow", Glyphs: []string{"●"}, Drawing: []string{disc}},
		},
		Notations: []sdk.Notation{{ID: "columns", Name: "Columns", Import: true,
			MediaType: "text/plain; charset=utf-8", Extension: ".txt"}},
		Levels: []sdk.Level{sdk.Easy},
		Resign: true,
	}
}

// Start begins an empty board. Connect Four has no options.
func (Variant) Start(opts sdk.Options) (sdk.State, sdk.View, error) {
	if _, err := sdk.ParseOptions(nil, opts); err != nil {
		return nil, sdk.View{}, err
	}
	g := game{resigned: sdk.NoSeat}
	return g.encode(), g.view(), nil
}

// Play applies the move of seat: a column letter, or sdk.Resign.
func (Variant) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	g, err := decode(s)
	if err != nil {
		return nil, sdk.View{}, err
	}
	if g.over() {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	if seat != 0 && seat != 1 {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeNotYourTurn, "no seat %d", seat)
	}
	if m == sdk.Resign {
		g.resigned = seat
		return g.encode(), g.view(), nil
	}
	if seat != g.toMove() {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeNotYourTurn, "seat %d is not to move", seat)
	}
	col, err := parseColumn(string(m))
	if err != nil {
		return nil, sdk.View{}, err
	}
	if b := g.board(); b.landing(col) < 0 {
		return nil, sdk.View{}, sdk.Errorf("column_full", "column %s is full", m)
	}
	g.moves = append(g.moves, col)
	return g.encode(), g.view(), nil
}

// View describes the game without changing it.
func (Variant) View(s sdk.State) (sdk.View, error) {
	g, err := decode(s)
	if err != nil {
		return sdk.View{}, err
	}
	return g.view(), nil
}

// Export writes the columns played, "d d c e", and "resign" if a seat did.
func (Variant) Export(s sdk.State, format string) (string, error) {
	g, err := decode(s)
	if err != nil {
		return "", err
	}
	if format != "columns" {
		return "", sdk.Errorf(sdk.CodeBadFormat, "unknown format %q", sdk.Clip(format))
	}
	var words []string
	for _, c := range g.moves {
		words = append(words, columnText(c))
	}
	if g.resigned != sdk.NoSeat {
		words = append(words, string(sdk.Resign))
	}
	return strings.Join(words, " "), nil
}

// Import reads what Export writes, playing each move through the rules.
func (v Variant) Import(format, text string) (sdk.State, sdk.View, error) {
	if format != "columns" {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadFormat, "unknown format %q", sdk.Clip(format))
	}
	s, view, _ := v.Start(nil)
	for i, w := range strings.Fields(text) {
		if i >= cells+1 {
			return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadNotation, "more moves than the board holds")
		}
		seat := sdk.Seat(0)
		if len(view.ToMove) > 0 {
			seat = view.ToMove[0]
		}
		ns, nv, err := v.Play(s, seat, sdk.Move(w))
		if err != nil {
			return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadNotation, "move %d %q: %v", i+1, sdk.Clip(w), err)
		}
		s, view = ns, nv
	}
	return s, view, nil
}

// Suggest plays for seat: a winning drop if there is one, else one that
// stops the opponent's, else the playable column nearest the centre.
func (Variant) Suggest(ctx context.Context, s sdk.State, seat sdk.Seat, level sdk.Level) (sdk.Move, error) {
	g, err := decode(s)
	if err != nil {
		return "", err
	}
	if level != sdk.Easy {
		return "", sdk.Errorf(sdk.CodeUnsupported, "no level %q", sdk.Clip(string(level)))
	}
	if g.over() || seat != g.toMove() {
		return "", sdk.Errorf(sdk.CodeNotYourTurn, "seat %d is not to move", seat)
	}
	b := g.board()
	for _, who := range []sdk.Seat{seat, 1 - seat} {
		for col := range files {
			if r := b.landing(col); r >= 0 {
				t := b
				t[r*files+col] = byte(who) + 1
				if t.winner() == who {
					return sdk.Move(columnText(col)), nil
				}
			}
		}
	}
	for _, col := range []int{3, 2, 4, 1, 5, 0, 6} {
		if b.landing(col) >= 0 {
			return sdk.Move(columnText(col)), nil
		}
	}
	return "", sdk.Errorf(sdk.CodeNoMove, "the board is full")
}
