package rules

// Zobrist hashing: a position's hash is the XOR of one fixed random number
// per (piece, point) and one more when Black is to move. make updates it with
// four XORs, so search gets a transposition key for free; the game's own
// repetition test keeps using the exact key, never the hash, since a hash
// collision must not decide a game.

// zobrist[pc][s] is the number of piece pc on square s. Row 0 (Empty) stays
// zero, so XOR-ing out an empty "captured" square costs no branch. The table
// has 64 rows so that indexing with pc&63 needs no bounds check.
var (
	zobrist     [64][256]uint64
	zobristSide uint64
)

func init() {
	// SplitMix64 with a fixed seed: the keys, and so every hash, are the
	// same in every process, which keeps searches reproducible.
	x := uint64(0x9E3779B97F4A7C15)
	next := func() uint64 {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
		z = (z ^ z>>27) * 0x94D049BB133111EB
		return z ^ z>>31
	}
	for c := Red; c <= Black; c++ {
		for k := King; k <= Pawn; k++ {
			pc := makePiece(c, k)
			for s := range zobrist[pc] {
				if onBoard[s] {
					zobrist[pc][s] = next()
				}
			}
		}
	}
	zobristSide = next()
}

// computeHash is the hash of the position from scratch.
func (p *Position) computeHash() uint64 {
	var h uint64
	for s, pc := range p.board {
		if pc != Empty && pc != Border {
			h ^= zobrist[pc&63][s]
		}
	}
	if p.side == Black {
		h ^= zobristSide
	}
	return h
}
