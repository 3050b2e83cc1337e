package rules

import (
	"strings"

	"github.com/banmen/banmen/sdk"
)

// WXF move notation, as the World Xiangqi Federation writes it: four
// characters, the piece letter (K A E H R C P), the file it stands on (1–9,
// counted from the mover's own right), the direction ('+' forward, '-'
// backward, '.' along the rank) and either the file it reaches (for a move
// along the rank and for the diagonal movers advisor, elephant and horse) or
// the number of ranks it moves (chariot, cannon, general, soldier going
// straight): "C2.5", "H8+7", "R1-2".
//
// Two chariots, cannons or horses of one side on one file are told apart by
// '+' (the front one, nearer the opponent) or '-' in place of the file:
// "R+.1", "C--1". Soldiers follow the WXF tandem rules: with three on a file
// the middle one keeps its file digit ("P+.4", "P3.4", "P-.4"); with four or
// five the foremost and rearmost lose their letter too ("++.4", "--.4"); when
// two files hold several soldiers, the file digit replaces the letter
// ("3+.4", "33.4", "7-.6"). Advisors and elephants always use their file: the
// direction tells two on one file apart.
//
// We print '.' for a move along the rank; the parser also accepts '=', lower
// case letters, N and B for horse and elephant, and the "+R.1" order some
// programs write.

// wxfLetters are the WXF piece letters, indexed by Kind.
const wxfLetters = ".KAEHRCP"

// wxfFile is the WXF number of file f (0 = a) for side c.
func wxfFile(c Color, f int) byte {
	if c == Red {
		return byte('9' - f)
	}
	return byte('1' + f)
}

// ahead reports whether square a is nearer the opponent than b for side c.
func ahead(c Color, a, b Square) bool {
	if c == Red {
		return a.Rank() > b.Rank()
	}
	return a.Rank() < b.Rank()
}

// WXF returns the WXF text of the legal move m in p.
func (p *Position) WXF(m Move) string {
	w := p.wxf(m)
	return string(w[:])
}

// wxf is WXF's four bytes.
func (p *Position) wxf(m Move) [4]byte {
	from, to := m.From(), m.To()
	pc := p.board[from]
	c, k := pc.Color(), pc.Kind()
	var out [4]byte
	out[0], out[1] = wxfLetters[k], wxfFile(c, from.File())
	switch k {
	case Rook, Cannon, Horse:
		for r := 0; r < 10; r++ {
			s := sq(from.File(), r)
			if s != from && p.board[s] == pc {
				out[1] = '-'
				if ahead(c, from, s) {
					out[1] = '+'
				}
			}
		}
	case Pawn:
		out[0], out[1] = p.pawnDesignator(from)
	}
	dr := to.Rank() - from.Rank()
	if c == Black {
		dr = -dr
	}
	switch {
	case dr == 0:
		out[2], out[3] = '.', wxfFile(c, to.File())
	case k == Advisor || k == Elephant || k == Horse:
		out[2], out[3] = '+', wxfFile(c, to.File())
	default:
		out[2], out[3] = '+', byte('0'+abs(dr))
	}
	if dr < 0 {
		out[2] = '-'
	}
	return out
}

// pawnDesignator returns the first two characters of a soldier's move.
func (p *Position) pawnDesignator(from Square) (byte, byte) {
	pc := p.board[from]
	c := pc.Color()
	digit := wxfFile(c, from.File())
	var perFile [9]int
	for r := 0; r < 10; r++ {
		for f := 0; f < 9; f++ {
			if p.board[sq(f, r)] == pc {
				perFile[f]++
			}
		}
	}
	n := perFile[from.File()]
	if n == 1 {
		return 'P', digit
	}
	tandemFiles := 0
	for _, k := range perFile {
		if k >= 2 {
			tandemFiles++
		}
	}
	// i is the soldier's place on its file counting from the front, 0-based.
	i := 0
	for r := 0; r < 10; r++ {
		if s := sq(from.File(), r); p.board[s] == pc && ahead(c, s, from) {
			i++
		}
	}
	mark := digit // the middle soldier of three (or of five)
	switch {
	case i == 0:
		mark = '+'
	case i == n-1:
		mark = '-'
	case n >= 4 && i == 1:
		mark = '+'
	case n >= 4 && i == n-2:
		mark = '-'
	}
	switch {
	case tandemFiles >= 2:
		return digit, mark
	case n >= 4 && (i == 0 || i == n-1):
		return mark, mark
	default:
		return 'P', mark
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// normalizeWXF brings accepted spellings to the printed form.
func normalizeWXF(text string) (string, bool) {
	b := []byte(strings.TrimSpace(text))
	if len(b) != 4 {
		return "", false
	}
	for i, ch := range b {
		switch {
		case ch >= 'a' && ch <= 'z':
			ch -= 'a' - 'A'
		case ch == '=':
			ch = '.'
		}
		switch ch {
		case 'N':
			ch = 'H'
		case 'B':
			ch = 'E'
		case 'G':
			ch = 'K'
		}
		b[i] = ch
	}
	if (b[0] == '+' || b[0] == '-') && strings.IndexByte(wxfLetters[1:], b[1]) >= 0 {
		b[0], b[1] = b[1], b[0] // "+R.1" → "R+.1"
	}
	okFirst := strings.IndexByte(wxfLetters[1:]+"+-123456789", b[0]) >= 0
	okSecond := strings.IndexByte("+-123456789", b[1]) >= 0
	okDir := b[2] == '+' || b[2] == '-' || b[2] == '.'
	okLast := b[3] >= '1' && b[3] <= '9'
	return string(b), okFirst && okSecond && okDir && okLast
}

// ParseWXF reads WXF text as a legal move of the side to move in p: bad_move
// when the text is not WXF, illegal_move when no legal move is written so.
func (p *Position) ParseWXF(text string) (Move, error) {
	norm, ok := normalizeWXF(text)
	if !ok {
		return NoMove, sdk.Errorf(sdk.CodeBadMove, "%q is not a WXF move such as C2.5", sdk.Clip(text))
	}
	for _, m := range p.LegalMoves() {
		if p.WXF(m) == norm {
			return m, nil
		}
	}
	return NoMove, sdk.Errorf(sdk.CodeIllegalMove, "%s is not a legal move here", text)
}
