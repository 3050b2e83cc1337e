// Package tictactoe is the smallest complete Banmen variant: the template to
// copy when adding a game. It implements sdk.Variant (and sdk.Perfter) with
// pure rules: every call decodes the game from the State it is given, checks
// it, and encodes the result; nothing is kept between calls.
//
// A real variant splits the same parts into files (position, move generation,
// notations, engine) but keeps this shape. Like every variant, it must never
// import the platform.
package tictactoe

import (
	"context"
	"fmt"
	"strings"

	"github.com/banmen/banmen/sdk"
)

// Variant is tic-tac-toe: X (seat 0) and O (seat 1) take turns marking an
// empty cell of a 3×3 board; three in a row wins, a full board is a draw.
type Variant struct{}

// Interface guards.
var (
	_ sdk.Variant = Variant{}
	_ sdk.Perfter = Variant{}
)

// ID is the variant's key, in URLs and in every sealed state.
const ID = "tictactoe"

// stateVersion is the version of the state payload. Bump it when the
// encoding changes, and keep reading the old one: saved games live on.
const stateVersion = 1

// kinds are the piece kinds by seat: a mark is a piece dropped from an
// unlimited hand (Description.Hands is false, so no hand is shown).
var kinds = [2]string{"X", "O"}

// Describe tells the host everything it shows without knowing the rules.
func (Variant) Describe() sdk.Description {
	return sdk.Description{
		ID: ID, Name: "Tic-tac-toe", NameKey: "variant.tictactoe",
		Seats: []sdk.SeatInfo{
			{Name: "X", NameKey: "seat.tictactoe.x", Color: "#c0392b"},
			{Name: "O", NameKey: "seat.tictactoe.o", Color: "#2471a3"},
		},
		Board: sdk.Geometry{Files: 3, Ranks: 3, Upright: true,
			FileLabels: []string{"a", "b", "c"}, RankLabels: []string{"3", "2", "1"}},
		Pieces: []sdk.PieceKind{
			{ID: "X", Name: "cross", NameKey: "piece.tictactoe.x", Glyphs: []string{"✕"}, Letter: "X"},
			{ID: "O", Name: "nought", NameKey: "piece.tictactoe.o", Glyphs: []string{"◯"}, Letter: "O"},
		},
		Notations: []sdk.Notation{{ID: "moves", Name: "Move list", Import: true,
			MediaType: "text/plain; charset=utf-8", Extension: ".txt"}},
		Levels: []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard},
		Resign: true,
	}
}

// game is the whole game: the cells marked in turn (X first) and who
// resigned. The board is replayed from the moves, so the two cannot disagree.
type game struct {
	moves    []int
	resigned sdk.Seat // sdk.NoSeat while nobody has
}

// board holds 0 (empty), 'x' or 'o' per cell; index = row*3 + col from the
// top left as seat 0 sees it, as in sdk.Geometry.
type board [9]byte

var marks = [2]byte{'x', 'o'}

var lines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

func (g game) board() (b board) {
	for i, c := range g.moves {
		b[c] = marks[i%2]
	}
	return b
}

// winner returns the seat with three in a row, or sdk.NoSeat.
func (b *board) winner() sdk.Seat {
	for _, l := range lines {
		if m := b[l[0]]; m != 0 && m == b[l[1]] && m == b[l[2]] {
			return seatOf(m)
		}
	}
	return sdk.NoSeat
}

func (b *board) count() (n int) {
	for _, m := range b {
		if m != 0 {
			n++
		}
	}
	return n
}

func seatOf(m byte) sdk.Seat {
	if m == 'o' {
		return 1
	}
	return 0
}

// over tells whether the game has ended.
func (g game) over() bool {
	b := g.board()
	return g.resigned != sdk.NoSeat || b.winner() != sdk.NoSeat || len(g.moves) == 9
}

// encode seals the game: one byte per marked cell, then 9+seat if a seat
// resigned.
func (g game) encode() sdk.State {
	p := make([]byte, 0, len(g.moves)+1)
	for _, c := range g.moves {
		p = append(p, byte(c))
	}
	if g.resigned != sdk.NoSeat {
		p = append(p, byte(9+g.resigned))
	}
	return sdk.SealState(ID, stateVersion, p)
}

// decode opens a state and checks every byte: the state comes from a
// browser and is hostile until proven otherwise.
func decode(s sdk.State) (game, error) {
	version, p, err := sdk.OpenState(ID, s)
	if err != nil {
		return game{}, err
	}
	if version != stateVersion {
		return game{}, sdk.Errorf(sdk.CodeBadState, "unknown state version %d", version)
	}
	g := game{resigned: sdk.NoSeat}
	for i, c := range p {
		if g.over() {
			return game{}, sdk.Errorf(sdk.CodeBadState, "a move after the end")
		}
		switch {
		case c == 9 || c == 10:
			if i != len(p)-1 {
				return game{}, sdk.Errorf(sdk.CodeBadState, "a move after a resignation")
			}
			g.resigned = sdk.Seat(c - 9)
		case c < 9 && g.board()[c] == 0:
			g.moves = append(g.moves, int(c))
		default:
			return game{}, sdk.Errorf(sdk.CodeBadState, "bad move byte %d", c)
		}
	}
	return g, nil
}

// Start begins an empty board. Tic-tac-toe has no options.
func (Variant) Start(opts sdk.Options) (sdk.State, sdk.View, error) {
	for k := range opts {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadOption, "unknown option %q", k)
	}
	g := game{resigned: sdk.NoSeat}
	return g.encode(), g.view(), nil
}

// Play applies a move. The order of the checks gives the most useful error:
// a bad state, then the end of the game, then the seat, then the move.
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
	if m == sdk.Resign { // either seat may resign at any time
		g.resigned = seat
		return g.encode(), g.view(), nil
	}
	if seat != sdk.Seat(len(g.moves)%2) {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeNotYourTurn, "seat %d is not to move", seat)
	}
	c, err := parseMove(m)
	if err != nil {
		return nil, sdk.View{}, err
	}
	if g.board()[c] != 0 {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeIllegalMove, "%s is taken", m)
	}
	g.moves = append(g.moves, c) // g is ours: decode made a fresh slice
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

// moveText is the move that marks cell c: file a–c, rank 1–3 from the bottom.
func moveText(c int) sdk.Move {
	return sdk.Move([]byte{'a' + byte(c%3), '3' - byte(c/3)})
}

// parseMove reads "b2" strictly: one text per move, nothing trimmed.
func parseMove(m sdk.Move) (int, error) {
	if len(m) != 2 || m[0] < 'a' || m[0] > 'c' || m[1] < '1' || m[1] > '3' {
		return 0, sdk.Errorf(sdk.CodeBadMove, "%q is not a cell a1–c3", m)
	}
	return int('3'-m[1])*3 + int(m[0]-'a'), nil
}

// legal lists the moves of the seat to move in the order the UI shows them.
func (g game) legal(b *board) []sdk.LegalMove {
	seat := sdk.Seat(len(g.moves) % 2)
	var out []sdk.LegalMove
	for c := range b {
		if b[c] == 0 {
			out = append(out, dropMove(seat, c))
		}
	}
	return out
}

func dropMove(seat sdk.Seat, c int) sdk.LegalMove {
	m := moveText(c)
	return sdk.LegalMove{Seat: seat, Kind: sdk.DropMove, Move: m, Text: string(m), From: -1, To: c, Drop: kinds[seat]}
}

func (g game) view() sdk.View {
	b := g.board()
	v := sdk.View{Ply: len(g.moves), Status: sdk.Playing, Position: b.position(len(g.moves) % 2),
		Board: make([]sdk.Cell, 9), History: []sdk.PlayedMove{}, Legal: []sdk.LegalMove{}}
	for c, m := range b {
		v.Board[c] = sdk.Cell{Owner: sdk.NoSeat}
		if m != 0 {
			v.Board[c] = sdk.Cell{Kind: kinds[seatOf(m)], Owner: seatOf(m)}
		}
	}
	for i, c := range g.moves {
		m := moveText(c)
		v.History = append(v.History, sdk.PlayedMove{Seat: sdk.Seat(i % 2), Move: m, Text: string(m)})
	}
	if n := len(g.moves); n > 0 {
		last := dropMove(sdk.Seat((n-1)%2), g.moves[n-1])
		v.LastMove = &last
	}
	if g.resigned != sdk.NoSeat {
		v.Ply++
		v.History = append(v.History, sdk.PlayedMove{Seat: g.resigned, Move: sdk.Resign, Text: string(sdk.Resign)})
	}
	switch w := b.winner(); {
	case g.resigned != sdk.NoSeat:
		v.Result = win(1-g.resigned, "result.resignation")
	case w != sdk.NoSeat:
		v.Result = win(w, "result.three_in_row")
	case len(g.moves) == 9:
		v.Result = &sdk.Result{Draw: true, Places: []int{1, 1}, Reason: "result.draw"}
	default:
		v.ToMove = []sdk.Seat{sdk.Seat(len(g.moves) % 2)}
		v.Legal = g.legal(&b)
		return v
	}
	v.Status = sdk.Over
	return v
}

func win(w sdk.Seat, reason string) *sdk.Result {
	places := []int{2, 2}
	places[w] = 1
	return &sdk.Result{Winners: []sdk.Seat{w}, Places: places, Reason: reason}
}

// position writes the board row by row from the top, then the side to
// move: "x.o/.x./..o x".
func (b *board) position(side int) string {
	var sb strings.Builder
	for c, m := range b {
		if c > 0 && c%3 == 0 {
			sb.WriteByte('/')
		}
		if m == 0 {
			m = '.'
		}
		sb.WriteByte(m)
	}
	sb.WriteByte(' ')
	sb.WriteByte(marks[side])
	return sb.String()
}

// parsePosition reads a position text and checks that it can arise in a
// game: the counts of X and O, the side to move, at most one winner.
func parsePosition(text string) (b board, side int, err error) {
	bad := sdk.Errorf(sdk.CodeBadPosition, "%q is not a position like \"x.o/.x./..o x\"", text)
	if len(text) != 13 || text[11] != ' ' {
		return b, 0, bad
	}
	var n [2]int
	for i, c := 0, 0; i < 11; i++ {
		switch ch := text[i]; {
		case i%4 == 3:
			if ch != '/' {
				return b, 0, bad
			}
			continue
		case ch == 'x' || ch == 'o':
			b[c] = ch
			n[seatOf(ch)]++
		case ch != '.':
			return b, 0, bad
		}
		c++
	}
	side = strings.IndexByte("xo", text[12])
	if side < 0 || n[0]-n[1] != side {
		return b, 0, sdk.Errorf(sdk.CodeBadPosition, "%q: the marks do not match the side to move", text)
	}
	var threes [2]int
	for _, l := range lines {
		if m := b[l[0]]; m != 0 && m == b[l[1]] && m == b[l[2]] {
			threes[seatOf(m)]++
		}
	}
	// The last mover may have made two lines at once; the other side none.
	if threes[side] > 0 || threes[1-side] > 2 {
		return b, 0, sdk.Errorf(sdk.CodeBadPosition, "%q cannot arise in a game", text)
	}
	return b, side, nil
}

// Export writes the moves, space-separated ("b2 a1 c3"); a resignation is
// "x:resign" or "o:resign".
func (Variant) Export(s sdk.State, format string) (string, error) {
	if format != "moves" {
		return "", sdk.Errorf(sdk.CodeBadFormat, "unknown format %q", format)
	}
	g, err := decode(s)
	if err != nil {
		return "", err
	}
	words := make([]string, 0, len(g.moves)+1)
	for _, c := range g.moves {
		words = append(words, string(moveText(c)))
	}
	if g.resigned != sdk.NoSeat {
		words = append(words, string(marks[g.resigned])+":"+string(sdk.Resign))
	}
	return strings.Join(words, " "), nil
}

// Import reads what Export writes, replaying every move through Play so that
// an imported game is exactly as legal as a played one.
func (v Variant) Import(format, text string) (sdk.State, sdk.View, error) {
	if format != "moves" {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadFormat, "unknown format %q", format)
	}
	s, view, _ := v.Start(nil)
	for i, w := range strings.Fields(text) {
		seat, m := sdk.Seat(i%2), sdk.Move(w)
		if who, ok := strings.CutSuffix(w, ":"+string(sdk.Resign)); ok && len(who) == 1 {
			seat, m = sdk.Seat(strings.IndexByte("xo", who[0])), sdk.Resign
		}
		var err error
		if s, view, err = v.Play(s, seat, m); err != nil {
			return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadNotation, "move %d %q: %v", i+1, clip(w), err)
		}
	}
	return s, view, nil
}

func clip(s string) string {
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}

// Perft counts the leaves of the move tree below a position ("" is the
// start), depth plies deep; a finished game has no children.
func (Variant) Perft(ctx context.Context, position string, depth int) (uint64, error) {
	var b board
	side := 0
	if position != "" {
		var err error
		if b, side, err = parsePosition(position); err != nil {
			return 0, err
		}
	}
	return perft(ctx, &b, side, depth)
}

func perft(ctx context.Context, b *board, side, depth int) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("perft: %w", err)
	}
	if depth == 0 {
		return 1, nil
	}
	if b.winner() != sdk.NoSeat {
		return 0, nil
	}
	var n uint64
	for c := range b {
		if b[c] != 0 {
			continue
		}
		b[c] = marks[side]
		k, err := perft(ctx, b, 1-side, depth-1)
		b[c] = 0
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}
