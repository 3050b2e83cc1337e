package rules

import (
	"strconv"
	"strings"

	"github.com/banmen/banmen/sdk"
)

// StartFEN is the initial position.
const StartFEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"

// Limits on the FEN counters: a clock beyond 120 plies means nothing (the game
// is drawn at 120), and a move number is kept printable.
const (
	maxClock    = 120
	maxFullmove = 100000
)

// maxCount is how many pieces of each kind a side starts with.
var maxCount = [8]int{King: 1, Advisor: 2, Elephant: 2, Horse: 2, Rook: 2, Cannon: 2, Pawn: 5}

// StartPosition returns the initial position.
func StartPosition() *Position {
	p, err := ParseFEN(StartFEN)
	if err != nil {
		panic("rules: bad start FEN: " + err.Error()) // a bug in this file
	}
	return p
}

func fenError(format string, args ...any) error {
	return sdk.Errorf(sdk.CodeBadPosition, "fen: "+format, args...)
}

// ParseFEN reads a Xiangqi FEN: ten ranks from Black's side (rank 9) down,
// separated by '/', with piece letters K A B N R C P (E and H are accepted for
// elephant and horse), upper case for Red, digits 1–9 for empty points; then
// the side to move, "w" (or "r") for Red and "b" for Black; then optionally
// the two unused fields "- -", and optionally the 60-move clock in plies and
// the fullmove number. It is strict: anything else is a *sdk.RuleError with
// code bad_position, and so is a position that cannot arise in a game (a
// general outside its palace, advisors, elephants or soldiers on points they
// never reach, too many pieces of a kind, or the side not to move in check,
// which includes facing generals).
func ParseFEN(s string) (*Position, error) {
	f := strings.Fields(s)
	var counters []string
	switch len(f) {
	case 2:
	case 4:
		counters = f[2:4]
	case 6:
		if f[2] != "-" || f[3] != "-" {
			return nil, fenError("fields 3 and 4 must be \"-\", got %q %q", sdk.Clip(f[2]), sdk.Clip(f[3]))
		}
		counters = f[4:6]
	case 0:
		return nil, fenError("empty")
	default:
		return nil, fenError("%d fields; want placement, side, [- -], [clock fullmove]", len(f))
	}
	p := new(Position)
	p.clear()
	if err := p.parsePlacement(f[0]); err != nil {
		return nil, err
	}
	switch f[1] {
	case "w", "r":
		p.side = Red
	case "b":
		p.side = Black
	default:
		return nil, fenError("side to move %q is not w or b", sdk.Clip(f[1]))
	}
	if counters != nil {
		var err error
		if p.clock, err = fenNumber(counters[0], 0, maxClock, "clock"); err != nil {
			return nil, err
		}
		if p.move, err = fenNumber(counters[1], 1, maxFullmove, "fullmove number"); err != nil {
			return nil, err
		}
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	p.hash = p.computeHash()
	return p, nil
}

func fenNumber(s string, lo, hi int, what string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || s[0] == '+' || s[0] == '-' || (len(s) > 1 && s[0] == '0') {
		return 0, fenError("%s %q is not a number", what, sdk.Clip(s))
	}
	if n < lo || n > hi {
		return 0, fenError("%s %d is outside %d..%d", what, n, lo, hi)
	}
	return n, nil
}

func (p *Position) parsePlacement(s string) error {
	rows := strings.Split(s, "/")
	if len(rows) != 10 {
		return fenError("%d ranks; want 10", len(rows))
	}
	for i, row := range rows {
		r := 9 - i
		f := 0
		lastDigit := false
		for j := 0; j < len(row); j++ {
			ch := row[j]
			if ch >= '1' && ch <= '9' {
				if lastDigit {
					return fenError("rank %d: two digits in a row", r)
				}
				lastDigit = true
				f += int(ch - '0')
				if f > 9 {
					return fenError("rank %d is longer than 9 points", r)
				}
				continue
			}
			lastDigit = false
			k, c, ok := pieceOfLetter(ch)
			if !ok {
				return fenError("rank %d: %q is not a piece letter", r, ch)
			}
			if f >= 9 {
				return fenError("rank %d is longer than 9 points", r)
			}
			if p.n[c] == 16 {
				return fenError("a side has more than 16 pieces")
			}
			p.put(sq(f, r), makePiece(c, k))
			f++
		}
		if f != 9 {
			return fenError("rank %d has %d points; want 9", r, f)
		}
	}
	return nil
}

// pieceOfLetter reads a FEN piece letter.
func pieceOfLetter(ch byte) (Kind, Color, bool) {
	c := Red
	if ch >= 'a' && ch <= 'z' {
		c, ch = Black, ch-'a'+'A'
	}
	switch ch {
	case 'E':
		return Elephant, c, true
	case 'H':
		return Horse, c, true
	}
	if i := strings.IndexByte(kindLetters, ch); i > 0 {
		return Kind(i), c, true
	}
	return NoKind, c, false
}

// validate checks that a parsed board can arise in a game.
func (p *Position) validate() error {
	var count [2][8]int
	names := [2]string{"red", "black"}
	for r := 0; r < 10; r++ {
		for f := 0; f < 9; f++ {
			s := sq(f, r)
			pc := p.board[s]
			if pc == Empty {
				continue
			}
			c, k := pc.Color(), pc.Kind()
			count[c][k]++
			if count[c][k] > maxCount[k] {
				return fenError("%s has more than %d %s", names[c], maxCount[k], kindNames[k])
			}
			var ok bool
			switch k {
			case King:
				ok = inPalace[c][s]
			case Advisor:
				ok = advisorOK[c][s]
			case Elephant:
				ok = elephOK[c][s]
			case Pawn:
				ok = pawnOK[c][s]
			default:
				ok = true
			}
			if !ok {
				return fenError("a %s %s cannot stand on %s", names[c], kindNames[k], squareName(s))
			}
		}
	}
	for c := range count {
		if count[c][King] != 1 {
			return fenError("%s has no general", names[c])
		}
	}
	if p.attacked(p.king[p.side^1], p.side^1) {
		return fenError("the side not to move is in check (or the generals face each other)")
	}
	return nil
}

// kindNames are English piece names, indexed by Kind.
var kindNames = [8]string{"", "general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier"}

// FEN prints the position: N and B letters, "w" or "b", "- -", the clock and
// the fullmove number.
func (p *Position) FEN() string {
	var b strings.Builder
	for r := 9; r >= 0; r-- {
		empty := 0
		for f := 0; f < 9; f++ {
			pc := p.board[sq(f, r)]
			if pc == Empty {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			ch := kindLetters[pc.Kind()]
			if pc.Color() == Black {
				ch += 'a' - 'A'
			}
			b.WriteByte(ch)
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			b.WriteByte('/')
		}
	}
	b.WriteString([]string{" w - - ", " b - - "}[p.side])
	b.WriteString(strconv.Itoa(p.clock))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(p.move))
	return b.String()
}
