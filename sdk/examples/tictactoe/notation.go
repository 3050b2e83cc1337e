package tictactoe

import (
	"strings"

	"github.com/banmen/banmen/sdk"
)

// moveText is the move that marks cell c: file a–c, rank 1–3 from the bottom.
func moveText(c int) sdk.Move {
	return sdk.Move([]byte{'a' + byte(c%3), '3' - byte(c/3)})
}

// parseMove reads "b2" strictly: one text per move, nothing trimmed.
func parseMove(m sdk.Move) (int, error) {
	if len(m) != 2 || m[0] < 'a' || m[0] > 'c' || m[1] < '1' || m[1] > '3' {
		return 0, sdk.Errorf(sdk.CodeBadMove, "%q is not a cell a1–c3", sdk.Clip(string(m)))
	}
	return int('3'-m[1])*3 + int(m[0]-'a'), nil
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
	bad := sdk.Errorf(sdk.CodeBadPosition, "%q is not a position like \"x.o/.x./..o x\"", sdk.Clip(text))
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
		return b, 0, sdk.Errorf(sdk.CodeBadPosition, "%q: the marks do not match the side to move", sdk.Clip(text))
	}
	var threes [2]int
	for _, l := range lines {
		if m := b[l[0]]; m != 0 && m == b[l[1]] && m == b[l[2]] {
			threes[seatOf(m)]++
		}
	}
	// The last mover may have made two lines at once; the other side none.
	if threes[side] > 0 || threes[1-side] > 2 {
		return b, 0, sdk.Errorf(sdk.CodeBadPosition, "%q cannot arise in a game", sdk.Clip(text))
	}
	return b, side, nil
}

// formats are the notations of Describe: one, so the table holds nothing but
// its ID; a variant with several keeps its writers or readers in it
// (sdk.Formats[func(*game) string]) and calls the one Get returns.
var formats = sdk.Formats[struct{}]{"moves": {}}

// Export writes the moves, space-separated ("b2 a1 c3"); a resignation is
// "x:resign" or "o:resign".
func (Variant) Export(s sdk.State, format string) (string, error) {
	if _, err := formats.Get(format); err != nil {
		return "", err
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
	if _, err := formats.Get(format); err != nil {
		return nil, sdk.View{}, err
	}
	s, view, _ := v.Start(nil)
	for i, w := range strings.Fields(text) {
		seat, m := sdk.Seat(i%2), sdk.Move(w)
		if w == "x:resign" || w == "o:resign" {
			seat, m = seatOf(w[0]), sdk.Resign
		} else if _, err := parseMove(m); err != nil { // Play alone would take a bare "resign"
			return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadNotation, "move %d: %v", i+1, err)
		}
		var err error
		if s, view, err = v.Play(s, seat, m); err != nil {
			return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadNotation, "move %d %q: %v", i+1, sdk.Clip(w), err)
		}
	}
	return s, view, nil
}
