package rules

// Piece kinds. The zero kind marks an empty square.
const (
	kindNone = iota
	kindKing
	kindRook
	kindGold
	kindSilver
	kindPawn
	numKinds
)

// handKinds are the kinds a hand may hold, in the order hands are shown.
var handKinds = [...]int{kindRook, kindGold, kindSilver, kindPawn}

// kindLetters are the kind IDs of the contract and of the notations.
var kindLetters = [numKinds]byte{0, 'K', 'R', 'G', 'S', 'P'}

// kindIDs are kindLetters as strings, made once (a string of a byte made
// per cell was an allocation each).
var kindIDs = func() (ids [numKinds]string) {
	for k, l := range kindLetters {
		if l != 0 {
			ids[k] = string(rune(l))
		}
	}
	return ids
}()

// ownerless is the owner of a piece that belongs to nobody (a mated player's
// board piece under the "ownerless" setting).
const ownerless = 4

// piece packs one occupied square: kind (bits 0–2), promoted (bit 3),
// flipped king (bit 4), owner (bits 5–7: a seat or ownerless) and facing
// (bits 8–9, quarter turns clockwise from pointing up). Zero is an empty
// square. A packed value keeps the board a flat array that copies cheaply.
type piece uint16

const (
	promotedBit piece = 1 << 3
	flippedBit  piece = 1 << 4
)

func makePiece(kind, owner, facing int, promoted bool) piece {
	p := piece(kind) | piece(owner)<<5 | piece(facing&3)<<8
	if promoted {
		p |= promotedBit
	}
	return p
}

func (p piece) kind() int             { return int(p & 7) }
func (p piece) promoted() bool        { return p&promotedBit != 0 }
func (p piece) flipped() bool         { return p&flippedBit != 0 }
func (p piece) owner() int            { return int(p>>5) & 7 }
func (p piece) facing() int           { return int(p>>8) & 3 }
func (p piece) withOwner(o int) piece { return p&^(7<<5) | piece(o)<<5 }

// shape indexes the movement tables: kind, promotion and facing.
func (p piece) shape() int { return int(p&15) | int(p>>8&3)<<4 }

// active reports whether the piece moves and attacks: it has a seat for
// owner and is not a flipped king.
func (p piece) active() bool { return p != 0 && p.owner() < ownerless && !p.flipped() }

// canPromote reports whether the kind has a promoted form.
func canPromote(kind int) bool { return kind == kindRook || kind == kindSilver || kind == kindPawn }

// Directions are numbered clockwise from up as seen by South: N NE E SE S SW W NW.
var dirDX = [8]int{0, 1, 1, 1, 0, -1, -1, -1}
var dirDY = [8]int{-1, -1, 0, 1, 1, 1, 0, -1}

// Relative step sets for a piece facing up (facing 0), as direction masks.
const (
	relKing   = 0xFF
	relGold   = 1<<0 | 1<<1 | 1<<2 | 1<<4 | 1<<6 | 1<<7
	relSilver = 1<<0 | 1<<1 | 1<<3 | 1<<5 | 1<<7
	relPawn   = 1 << 0
	relDiag   = 1<<1 | 1<<3 | 1<<5 | 1<<7
	orthoDirs = 1<<0 | 1<<2 | 1<<4 | 1<<6
)

// stepMask[shape] is the set of absolute directions a piece steps one square
// in; slides[shape] tells whether it also slides along the four orthogonals
// (rook and dragon, the only sliders of the game).
var (
	stepMask [64]uint8
	slides   [64]bool
)

// rotate turns a relative direction mask by facing quarter turns clockwise.
func rotate(mask uint8, facing int) uint8 {
	s := uint(2*facing) & 7
	return mask<<s | mask>>(8-s)
}

func init() {
	for facing := range 4 {
		for kind := kindKing; kind < numKinds; kind++ {
			for _, promo := range []bool{false, true} {
				sh := makePiece(kind, 0, facing, promo).shape()
				var rel uint8
				switch {
				case kind == kindKing:
					rel = relKing
				case kind == kindRook && promo:
					rel, slides[sh] = relDiag, true
				case kind == kindRook:
					slides[sh] = true
				case kind == kindGold, promo:
					rel = relGold
				case kind == kindSilver:
					rel = relSilver
				case kind == kindPawn:
					rel = relPawn
				}
				stepMask[sh] = rotate(rel, facing)
			}
		}
	}
	for sq := range 81 {
		r, c := sq/9, sq%9
		for d := range 8 {
			rr, cc := r+dirDY[d], c+dirDX[d]
			if rr < 0 || rr > 8 || cc < 0 || cc > 8 {
				neighbour[sq][d] = -1
			} else {
				neighbour[sq][d] = int8(rr*9 + cc)
			}
		}
	}
	for sh := range stepTargets {
		for sq := range 81 {
			t := &stepTargets[sh][sq]
			for d := range 8 {
				if stepMask[sh]&(1<<d) != 0 && neighbour[sq][d] >= 0 {
					t[0]++
					t[t[0]] = neighbour[sq][d]
				}
			}
		}
	}
}

// neighbour[sq][dir] is the adjacent square in that direction, or -1 off the board.
var neighbour [81][8]int8

// stepTargets[shape][sq] lists the squares a piece of that shape steps to
// from sq: the count, then the squares.
var stepTargets [64][81][9]int8

// forwardDir is the absolute direction a piece of the given facing moves forward.
func forwardDir(facing int) int { return 2 * facing }

// inZone reports whether sq is in the three far ranks of the given facing.
func inZone(sq, facing int) bool {
	r, c := sq/9, sq%9
	switch facing {
	case 0:
		return r <= 2
	case 1:
		return c >= 6
	case 2:
		return r >= 6
	default:
		return c <= 2
	}
}

// onLastRank reports whether sq is the far edge for the given facing, where a
// pawn has no move.
func onLastRank(sq, facing int) bool { return neighbour[sq][forwardDir(facing)] < 0 }

// pawnLine is the line a pawn of the given facing walks along (its "file"):
// a column for up and down, a row for left and right. Nifu counts along it.
func pawnLine(sq, facing int) int {
	if facing&1 == 0 {
		return sq % 9
	}
	return 9 + sq/9
}
