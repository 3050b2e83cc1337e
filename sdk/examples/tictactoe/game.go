package tictactoe

import "github.com/banmen/banmen/sdk"

// game is the whole game: the cells marked in turn (X first) and who
// resigned. The board is replayed from the moves, so the two cannot disagree.
type game struct {
	moves    []int
	resigned sdk.Seat // sdk.NoSeat while nobody has
}

// board holds 0 (empty), 'x' or 'o' per cell; index = row*3 + col from the
// top left as seat 0 sees it, as in sdk.Geometry.
type board [9]byte

// marks are the board bytes of seats 0 and 1.
var marks = [2]byte{'x', 'o'}

// lines are the rows, columns and diagonals that win.
var lines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

// board replays the moves.
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

// stateVersion is the version of the state payload. Bump it when the
// encoding changes, and keep reading the old one: saved games live on.
const stateVersion = 1

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
