// Package tictactoe is the smallest complete Banmen variant: the template to
// copy when adding a game. It implements sdk.Variant (and sdk.Perfter, sdk.Divider) with
// pure rules: every call decodes the game from the State it is given, checks
// it, and encodes the result; nothing is kept between calls.
//
// Its files are the parts every variant has: tictactoe.go the contract's
// methods and the View, game.go the game and its state encoding, notation.go
// move and position texts and Export/Import, suggest.go the computer player,
// perft.go the move-tree count. A real variant has more of each (move
// generation, several notations, a search) but keeps this shape. Like every
// variant it imports only the sdk, never the platform.
package tictactoe

import "github.com/banmen/banmen/sdk"

// Variant is tic-tac-toe: X (seat 0) and O (seat 1) take turns marking an
// empty cell of a 3×3 board; three in a row wins, a full board is a draw.
type Variant struct{}

// Capability guards: the compiler checks that Variant has each capability
// it means to have. Without them a method whose signature drifts from the
// sdk's (Suggest gained a seat once) still compiles, and the variant
// silently stops being, say, a Suggester.
var (
	_ sdk.Variant   = Variant{}
	_ sdk.Suggester = Variant{} // suggest.go: the computer player, for Levels
	_ sdk.Rewinder  = Variant{} // move list navigation and takebacks
	_ sdk.Perfter   = Variant{} // perft.go
	_ sdk.Divider   = Variant{}
)

// ID is the variant's key, in URLs and in every sealed state.
const ID = "tictactoe"

// kinds are the piece kinds by seat: a mark is a piece dropped from an
// unlimited hand (Description.Hands is false, so no hand is shown).
var kinds = [2]string{"X", "O"}

// rulesVersion is Description.RulesVersion. Change it whenever a game
// recorded before might replay differently or be refused (a move's legality,
// an ending, a result); hosts keep records across upgrades.
const rulesVersion = "1"

// Describe tells the host everything it shows without knowing the rules.
func (Variant) Describe() sdk.Description {
	return sdk.Description{
		ID: ID, Name: "Tic-tac-toe", NameKey: "variant.tictactoe", RulesVersion: rulesVersion,
		Texts: texts, Card: card,
		Seats: []sdk.SeatInfo{
			{Name: "X", NameKey: "seat.tictactoe.x", Color: "#c0392b"},
			{Name: "O", NameKey: "seat.tictactoe.o", Color: "#2471a3"},
		},
		Board: sdk.Geometry{Files: 3, Ranks: 3, Upright: true,
			FileLabels: []string{"a", "b", "c"}, RankLabels: []string{"3", "2", "1"}},
		Pieces: []sdk.PieceKind{
			{ID: "X", Name: "cross", NameKey: "piece.tictactoe.x", Glyphs: []string{"✕"}, Letter: "X", Drawing: []string{drawingX}},
			{ID: "O", Name: "nought", NameKey: "piece.tictactoe.o", Glyphs: []string{"◯"}, Letter: "O", Drawing: []string{drawingO}},
		},
		Notations: []sdk.Notation{{ID: "moves", Name: "Move list", Import: true,
			MediaType: "text/plain; charset=utf-8", Extension: ".txt"}},
		Levels: []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard},
		Resign: true,
	}
}

// Start begins an empty board. Tic-tac-toe has no options.
func (Variant) Start(opts sdk.Options) (sdk.State, sdk.View, error) {
	if _, err := sdk.ParseOptions(nil, opts); err != nil {
		return nil, sdk.View{}, err
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

// view is everything the browser shows: cells (index row*3+col from the top
// left), the seat to move and its legal moves, the history, and the result.
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

// Rewind is the game after its first ply moves (a resignation is the last
// ply): with it the site offers move list navigation and takebacks.
func (Variant) Rewind(s sdk.State, ply int) (sdk.State, sdk.View, error) {
	g, err := decode(s)
	if err != nil {
		return nil, sdk.View{}, err
	}
	total := len(g.moves)
	if g.resigned != sdk.NoSeat {
		total++
	}
	if ply < 0 || ply > total {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadPly, "the game has no ply %d", ply)
	}
	r := game{moves: g.moves[:min(ply, len(g.moves)):min(ply, len(g.moves))], resigned: sdk.NoSeat}
	if ply > len(g.moves) {
		r.resigned = g.resigned
	}
	return r.encode(), r.view(), nil
}
