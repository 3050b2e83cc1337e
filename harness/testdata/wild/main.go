// Command wild is a test plugin for the browser conformance check: wild
// tic-tac-toe, where either player may put an X or an O on any empty cell
// and whoever completes three alike in a row wins. Each cell takes two kinds
// of drop from an unlimited supply, so the board must ask which; and each
// player may pass once, an action (a button).
package main

import (
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/serve"
)

const id = "wild"

var kinds = [2]string{"X", "O"}

var lines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

type variant struct{}

func (variant) Describe() sdk.Description {
	return sdk.Description{
		ID: id, Name: "Wild tic-tac-toe", NameKey: "variant.wild", RulesVersion: "1",
		Texts: sdk.Texts{"en": {"variant.wild": "Wild tic-tac-toe", "seat.wild.first": "First", "seat.wild.second": "Second",
			"piece.wild.x": "cross", "piece.wild.o": "nought", "result.wild.three": "three alike", "action.wild.pass": "Pass"}},
		Seats: []sdk.SeatInfo{{Name: "First", NameKey: "seat.wild.first", Color: "#333"}, {Name: "Second", NameKey: "seat.wild.second", Color: "#a33"}},
		Board: sdk.Geometry{Files: 3, Ranks: 3, Upright: true},
		Pieces: []sdk.PieceKind{
			{ID: "X", Name: "cross", NameKey: "piece.wild.x", Glyphs: []string{"✕"}},
			{ID: "O", Name: "nought", NameKey: "piece.wild.o", Glyphs: []string{"◯"}},
		},
		Notations: []sdk.Notation{{ID: "moves", Name: "Moves", MediaType: "text/plain", Extension: ".txt"}},
	}
}

// A game is its moves, one byte each: cell*2 + kind, or pass (a seat's
// pass, at most one each).
type game []byte

const pass = 18

// passed tells whether seat has passed.
func (g game) passed(seat sdk.Seat) bool {
	for i, m := range g {
		if m == pass && sdk.Seat(i%2) == seat {
			return true
		}
	}
	return false
}

func decode(s sdk.State) (game, error) {
	_, p, err := sdk.OpenState(id, s)
	if err != nil {
		return nil, err
	}
	var g game
	for _, b := range p {
		if b == pass && !g.over() && !g.passed(sdk.Seat(len(g)%2)) {
			g = append(g, b)
			continue
		}
		if b >= 18 || g.over() || g.board()[b/2] != 0 {
			return nil, sdk.Errorf(sdk.CodeBadState, "bad move byte %d", b)
		}
		g = append(g, b)
	}
	return g, nil
}

func (g game) board() (b [9]byte) {
	for _, m := range g {
		if m != pass {
			b[m/2] = m%2 + 1
		}
	}
	return b
}

func (g game) three() bool {
	b := g.board()
	for _, l := range lines {
		if b[l[0]] != 0 && b[l[0]] == b[l[1]] && b[l[1]] == b[l[2]] {
			return true
		}
	}
	return false
}

func (g game) full() bool {
	for _, k := range g.board() {
		if k == 0 {
			return false
		}
	}
	return true
}

func (g game) over() bool { return g.three() || g.full() }

func text(m byte) string {
	return string(rune('a'+m/2%3)) + string(rune('3'-m/2/3)) + []string{"x", "o"}[m%2]
}

func legal(seat sdk.Seat, m byte) sdk.LegalMove {
	if m == pass {
		return sdk.LegalMove{Seat: seat, Kind: sdk.Action, Move: "pass", Text: "pass", From: -1, To: -1, Key: "action.wild.pass"}
	}
	return sdk.LegalMove{Seat: seat, Kind: sdk.DropMove, Move: sdk.Move(text(m)), Text: text(m), From: -1, To: int(m / 2), Drop: kinds[m%2]}
}

func (g game) view() sdk.View {
	b := g.board()
	v := sdk.View{Ply: len(g), Status: sdk.Playing, Board: make([]sdk.Cell, 9), History: []sdk.PlayedMove{}, Legal: []sdk.LegalMove{}}
	for i, k := range b {
		v.Board[i] = sdk.Cell{Owner: sdk.NoSeat}
		if k != 0 {
			v.Board[i] = sdk.Cell{Kind: kinds[k-1], Owner: sdk.Seat(k - 1)}
		}
		v.Position += string(".xo"[k])
	}
	v.Position += " " + string("12"[len(g)%2])
	for i, m := range g {
		lm := legal(sdk.Seat(i%2), m)
		v.History = append(v.History, sdk.PlayedMove{Seat: lm.Seat, Move: lm.Move, Text: lm.Text})
		v.LastMove = &lm
	}
	switch {
	case g.three():
		w := sdk.Seat((len(g) - 1) % 2)
		v.Status, v.Result = sdk.Over, &sdk.Result{Winners: []sdk.Seat{w}, Reason: "result.wild.three"}
	case g.full():
		v.Status, v.Result = sdk.Over, &sdk.Result{Draw: true, Reason: "result.draw"}
	default:
		seat := sdk.Seat(len(g) % 2)
		v.ToMove = []sdk.Seat{seat}
		for m := byte(0); m < 18; m++ {
			if b[m/2] == 0 {
				v.Legal = append(v.Legal, legal(seat, m))
			}
		}
		if !g.passed(seat) {
			v.Legal = append(v.Legal, legal(seat, pass))
		}
	}
	return v
}

func (variant) Start(o sdk.Options) (sdk.State, sdk.View, error) {
	if _, err := sdk.ParseOptions(nil, o); err != nil {
		return nil, sdk.View{}, err
	}
	return sdk.SealState(id, 1, nil), game(nil).view(), nil
}

func (variant) Play(s sdk.State, seat sdk.Seat, mv sdk.Move) (sdk.State, sdk.View, error) {
	g, err := decode(s)
	if err != nil {
		return nil, sdk.View{}, err
	}
	if g.over() {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeGameOver, "over")
	}
	if seat != sdk.Seat(len(g)%2) {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeNotYourTurn, "not your turn")
	}
	for _, l := range g.view().Legal {
		if l.Move == mv {
			ng := append(game{}, g...)
			if l.Kind == sdk.Action {
				ng = append(ng, pass)
			} else {
				ng = append(ng, byte(l.To*2)+map[string]byte{"X": 0, "O": 1}[l.Drop])
			}
			return sdk.SealState(id, 1, ng), ng.view(), nil
		}
	}
	return nil, sdk.View{}, sdk.Errorf(sdk.CodeIllegalMove, "not legal")
}

func (variant) View(s sdk.State) (sdk.View, error) {
	g, err := decode(s)
	if err != nil {
		return sdk.View{}, err
	}
	return g.view(), nil
}

func (variant) Export(s sdk.State, _ string) (string, error) {
	return "", sdk.Errorf(sdk.CodeUnsupported, "no export")
}

func (variant) Import(string, string) (sdk.State, sdk.View, error) {
	return nil, sdk.View{}, sdk.Errorf(sdk.CodeUnsupported, "no import")
}

func main() { serve.Serve(variant{}) }
