package rules

import (
	"strconv"
	"strings"

	"github.com/banmen/banmen/sdk"
)

// StartSFEN is the initial position of shogi.
const StartSFEN = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"

// SFEN error codes, one per malformed field, and one for a well-formed SFEN
// that describes an impossible position. Each has the i18n key "error."+code.
const (
	CodeSFENFields  = "bad_sfen"          // not 3 or 4 space-separated fields
	CodeSFENBoard   = "bad_sfen_board"    // the board field
	CodeSFENSide    = "bad_sfen_side"     // the side to move: b or w
	CodeSFENHand    = "bad_sfen_hand"     // the pieces in hand
	CodeSFENMoveNum = "bad_sfen_move_num" // the move number
	CodeIllegalPos  = "illegal_position"  // too many pieces, a dead piece, nifu, the side not to move in check
)

// sfenLetters maps kinds to SFEN letters (upper case, Sente).
var sfenLetters = [15]byte{0, 'P', 'L', 'N', 'S', 'B', 'R', 'G', 'K', 'P', 'L', 'N', 'S', 'B', 'R'}

// kindOfLetter maps an upper-case SFEN letter to its kind, 0 when unknown.
func kindOfLetter(b byte) int {
	switch b {
	case 'P':
		return pawn
	case 'L':
		return lance
	case 'N':
		return knight
	case 'S':
		return silver
	case 'B':
		return bishop
	case 'R':
		return rook
	case 'G':
		return gold
	case 'K':
		return king
	}
	return 0
}

// handOrder is the order of pieces in hand in SFEN and in the View.
var handOrder = [7]int{rook, bishop, gold, silver, knight, lance, pawn}

// maxCount is how many pieces of each base kind a set has.
var maxCount = [9]int{0, 18, 4, 4, 4, 2, 2, 4, 2}

// MaxMoveNumber bounds the SFEN move number, so that arithmetic on it never
// overflows.
const MaxMoveNumber = 1_000_000

// ParseSFEN reads an SFEN position strictly and validates it.
func ParseSFEN(s string) (Position, error) {
	p := newEmptyPosition()
	f := strings.Split(s, " ")
	if len(f) != 3 && len(f) != 4 {
		return p, sdk.Errorf(CodeSFENFields, "an SFEN has 3 or 4 fields separated by single spaces, got %q", sdk.Clip(s))
	}
	if err := p.parseBoard(f[0]); err != nil {
		return p, err
	}
	switch f[1] {
	case "b":
		p.side = sente
	case "w":
		p.side = gote
	default:
		return p, sdk.Errorf(CodeSFENSide, "the side to move is b or w, got %q", sdk.Clip(f[1]))
	}
	if err := p.parseHand(f[2]); err != nil {
		return p, err
	}
	if len(f) == 4 {
		n, err := strconv.Atoi(f[3])
		if err != nil || n < 1 || n > MaxMoveNumber || f[3][0] == '0' || f[3][0] == '+' {
			return p, sdk.Errorf(CodeSFENMoveNum, "the move number is a whole number from 1 to %d, got %q", MaxMoveNumber, sdk.Clip(f[3]))
		}
		p.moveNum = n
	}
	// validate sets the hash: call it before p is copied out.
	err := p.validate()
	return p, err
}

func (p *Position) parseBoard(s string) error {
	rows := strings.Split(s, "/")
	if len(rows) != 9 {
		return sdk.Errorf(CodeSFENBoard, "the board has 9 ranks separated by '/', got %d", len(rows))
	}
	for r, row := range rows {
		col := 0
		for i := 0; i < len(row); i++ {
			ch := row[i]
			if ch >= '1' && ch <= '9' {
				if i > 0 && row[i-1] >= '1' && row[i-1] <= '9' {
					return sdk.Errorf(CodeSFENBoard, "rank %d has two digits in a row", r+1)
				}
				col += int(ch - '0')
				if col > 9 {
					return sdk.Errorf(CodeSFENBoard, "rank %d is longer than 9 cells", r+1)
				}
				continue
			}
			prom := false
			if ch == '+' {
				prom = true
				i++
				if i == len(row) {
					return sdk.Errorf(CodeSFENBoard, "rank %d ends with '+'", r+1)
				}
				ch = row[i]
			}
			c := sente
			up := ch
			if ch >= 'a' && ch <= 'z' {
				c, up = gote, ch-'a'+'A'
			}
			k := kindOfLetter(up)
			if k == 0 {
				return sdk.Errorf(CodeSFENBoard, "rank %d has an unknown piece %q", r+1, string(ch))
			}
			if prom {
				if !canPromote(k) {
					return sdk.Errorf(CodeSFENBoard, "rank %d: %q cannot be promoted", r+1, string(ch))
				}
				k += promoted
			}
			if col >= 9 {
				return sdk.Errorf(CodeSFENBoard, "rank %d is longer than 9 cells", r+1)
			}
			sq := mb(r, col)
			if k == king && p.kingSq[c] != 0 {
				return sdk.Errorf(CodeIllegalPos, "%s has two kings", colorName[c])
			}
			p.put(sq, makePiece(c, k))
			col++
		}
		if col != 9 {
			return sdk.Errorf(CodeSFENBoard, "rank %d has %d cells, not 9", r+1, col)
		}
	}
	return nil
}

func (p *Position) parseHand(s string) error {
	if s == "-" {
		return nil
	}
	if s == "" {
		return sdk.Errorf(CodeSFENHand, "the hand is '-' when empty")
	}
	var seen [2][8]bool
	for i := 0; i < len(s); {
		n := 1
		if s[i] >= '0' && s[i] <= '9' {
			if s[i] == '0' {
				return sdk.Errorf(CodeSFENHand, "a count in hand may not start with 0")
			}
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' && j-i < 3 {
				j++
			}
			n, _ = strconv.Atoi(s[i:j])
			i = j
			if i == len(s) {
				return sdk.Errorf(CodeSFENHand, "a count in hand needs a piece after it")
			}
		}
		ch := s[i]
		i++
		c, up := sente, ch
		if ch >= 'a' && ch <= 'z' {
			c, up = gote, ch-'a'+'A'
		}
		k := kindOfLetter(up)
		if k == 0 || k == king {
			return sdk.Errorf(CodeSFENHand, "%q cannot be in hand", string(ch))
		}
		if seen[c][k] {
			return sdk.Errorf(CodeSFENHand, "%q is listed twice in hand", string(ch))
		}
		seen[c][k] = true
		if n > maxCount[k] {
			return sdk.Errorf(CodeIllegalPos, "%d of %q in hand is more than a set has", n, string(ch))
		}
		p.hand[c][k] = uint8(n)
	}
	return nil
}

var colorName = [2]string{"Sente", "Gote"}

// validate rejects positions that cannot arise: more pieces than a set has,
// an unpromoted piece that could never move again, two unpromoted pawns of
// one side on a file, or the side that just moved left in check.
func (p *Position) validate() error {
	var count [9]int
	var pawnFiles [2]uint16
	for _, sq := range squares {
		pc := p.b[sq]
		if pc == 0 {
			continue
		}
		c, k := colorOf(pc), kindOf(pc)
		count[baseKind[k]]++
		if k <= gold && forced[c][k][sq] {
			return sdk.Errorf(CodeIllegalPos, "the %s %c on %s can never move", colorName[c], sfenLetters[k], usiSquare(sq))
		}
		if k == pawn {
			bit := uint16(1) << colOf[sq]
			if pawnFiles[c]&bit != 0 {
				return sdk.Errorf(CodeIllegalPos, "%s has two pawns on file %d (nifu)", colorName[c], 9-colOf[sq])
			}
			pawnFiles[c] |= bit
		}
	}
	for c := 0; c < 2; c++ {
		for k := pawn; k <= gold; k++ {
			count[k] += int(p.hand[c][k])
		}
	}
	for k := pawn; k <= king; k++ {
		if count[k] > maxCount[k] {
			return sdk.Errorf(CodeIllegalPos, "%d pieces of kind %c are more than a set has", count[k], sfenLetters[k])
		}
	}
	if ks := p.kingSq[p.side^1]; ks != 0 && p.attacked(ks, p.side) {
		return sdk.Errorf(CodeIllegalPos, "%s, who is not to move, is in check", colorName[p.side^1])
	}
	// Every parser ends here, so a valid position always has its hash.
	p.rehash()
	return nil
}

// SFEN prints the position with its move number.
func (p *Position) SFEN() string {
	var buf [192]byte // more than the longest SFEN; the string is one allocation
	return string(p.appendSFEN(buf[:0]))
}

// appendSFEN appends the SFEN of p to b.
func (p *Position) appendSFEN(b []byte) []byte {
	for r := 0; r < 9; r++ {
		if r > 0 {
			b = append(b, '/')
		}
		empty := 0
		for col := 0; col < 9; col++ {
			pc := p.b[mb(r, col)]
			if pc == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b = append(b, byte('0'+empty))
				empty = 0
			}
			k := kindOf(pc)
			if k > king {
				b = append(b, '+')
			}
			ch := sfenLetters[k]
			if colorOf(pc) == gote {
				ch += 'a' - 'A'
			}
			b = append(b, ch)
		}
		if empty > 0 {
			b = append(b, byte('0'+empty))
		}
	}
	if p.side == gote {
		b = append(b, " w "...)
	} else {
		b = append(b, " b "...)
	}
	any := false
	for c := 0; c < 2; c++ {
		for _, k := range handOrder {
			n := int(p.hand[c][k])
			if n == 0 {
				continue
			}
			any = true
			if n > 1 {
				b = strconv.AppendInt(b, int64(n), 10)
			}
			ch := sfenLetters[k]
			if c == gote {
				ch += 'a' - 'A'
			}
			b = append(b, ch)
		}
	}
	if !any {
		b = append(b, '-')
	}
	b = append(b, ' ')
	return strconv.AppendInt(b, int64(p.moveNum), 10)
}
