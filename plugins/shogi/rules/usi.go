package rules

import (
	"github.com/banmen/banmen/sdk"
)

// Special move texts of USI: the entering-king declaration, and resignation
// (sdk.Resign, not written in USI positions).
const (
	DeclareMove sdk.Move = "win"
)

// usiSquare prints a mailbox cell as USI ("7g").
func usiSquare(sq int) string { return usiSquares[sq] }

// parseUSISquare reads "7g" into a mailbox cell.
func parseUSISquare(s string) (int, bool) {
	if len(s) != 2 || s[0] < '1' || s[0] > '9' || s[1] < 'a' || s[1] > 'i' {
		return 0, false
	}
	return mb(int(s[1]-'a'), int('9'-s[0])), true
}

// ParseUSI reads a USI board move or drop ("7g7f", "8h2b+", "P*5e"). It
// checks the syntax only; legality is the position's business.
func ParseUSI(s string) (Move, error) {
	if len(s) == 4 && s[1] == '*' {
		k := kindOfLetter(s[0])
		to, ok := parseUSISquare(s[2:])
		if k == 0 || k == king || !ok {
			return 0, sdk.Errorf(sdk.CodeBadMove, "%q is not a USI drop", sdk.Clip(s))
		}
		return dropMove(k, to), nil
	}
	if len(s) == 4 || (len(s) == 5 && s[4] == '+') {
		from, ok1 := parseUSISquare(s[:2])
		to, ok2 := parseUSISquare(s[2:4])
		if ok1 && ok2 && from != to {
			return boardMove(from, to, len(s) == 5), nil
		}
	}
	return 0, sdk.Errorf(sdk.CodeBadMove, "%q is not a USI move", sdk.Clip(s))
}

// USI prints a move in USI.
func (m Move) USI() string { return string(m.appendUSI(nil)) }

// appendUSI appends m's USI text to b.
func (m Move) appendUSI(b []byte) []byte {
	if m.isDrop() {
		return append(b, sfenLetters[m.dropKind()], '*', usiFile[m.to()], usiRank[m.to()])
	}
	b = append(b, usiFile[m.from()], usiRank[m.from()], usiFile[m.to()], usiRank[m.to()])
	if m.promotes() {
		b = append(b, '+')
	}
	return b
}
