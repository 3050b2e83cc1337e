package rules

import "github.com/banmen/banmen/sdk"

// UCCI move text is four characters, from and to: a file letter a–i (left to
// right as Red sees the board) and a rank digit 0–9 counted from Red's side,
// as in "h2e2".

// squareName is the UCCI name of a square, "e0".
func squareName(s Square) string {
	return string([]byte{byte('a' + s.File()), byte('0' + s.Rank())})
}

// UCCI returns the move's UCCI text.
func UCCI(m Move) string { return string(appendUCCI(nil, m)) }

// appendUCCI appends the move's UCCI text to b.
func appendUCCI(b []byte, m Move) []byte {
	f, t := m.From(), m.To()
	return append(b, byte('a'+f.File()), byte('0'+f.Rank()), byte('a'+t.File()), byte('0'+t.Rank()))
}

// parseSquare reads a UCCI square name.
func parseSquare(s string) (Square, bool) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'i' || s[1] < '0' || s[1] > '9' {
		return NoSquare, false
	}
	return sq(int(s[0]-'a'), int(s[1]-'0')), true
}

// ParseUCCI reads UCCI move text into a move between two board points; it
// says nothing about legality. Bad text is a *sdk.RuleError with code
// bad_move.
func ParseUCCI(text string) (Move, error) {
	if len(text) == 4 {
		from, ok1 := parseSquare(text[:2])
		to, ok2 := parseSquare(text[2:])
		if ok1 && ok2 && from != to {
			return newMove(from, to), nil
		}
	}
	return NoMove, sdk.Errorf(sdk.CodeBadMove, "%q is not a UCCI move such as h2e2", sdk.Clip(text))
}

// ParseLegalUCCI reads UCCI text and checks that it is a legal move of the
// side to move in p (code illegal_move otherwise).
func (p *Position) ParseLegalUCCI(text string) (Move, error) {
	m, err := ParseUCCI(text)
	if err != nil {
		return NoMove, err
	}
	if !p.isLegal(m) {
		return NoMove, sdk.Errorf(sdk.CodeIllegalMove, "%s is not a legal move here", text)
	}
	return m, nil
}

// isLegal reports whether m is a legal move of the side to move.
func (p *Position) isLegal(m Move) bool {
	var l MoveList
	p.generate(&l)
	for _, x := range l.m[:l.n] {
		if x == m {
			return p.legal(m, p.InCheck())
		}
	}
	return false
}
