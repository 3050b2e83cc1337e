package rules

import "github.com/banmen/banmen/sdk"

// This file is the narrow door through which package engine searches: the
// packed moves and pieces, a position it may copy and play on without the
// game's bookkeeping, and the facts its evaluation reads. Everything here
// follows the same rules as Variant.Play; the game's repetition ending is
// the one thing a bare Position does not know, so the engine asks Game for
// it at the root only.

// Move is a packed move of the seat to move (see move).
type Move = move

// Piece is a packed board square (see piece); zero is empty.
type Piece = piece

// Kinds, for the engine's evaluation.
const (
	King   = kindKing
	Rook   = kindRook
	Gold   = kindGold
	Silver = kindSilver
	Pawn   = kindPawn
	// NumKinds bounds the kinds (index 0 is "none").
	NumKinds = numKinds
	// Ownerless is the owner of a piece that belongs to nobody.
	Ownerless = ownerless
)

// HandKinds are the kinds a hand may hold.
var HandKinds = handKinds

// From is the square a board move leaves (a drop's is above 80).
func (m move) From() int { return m.from() }

// To is the square the move lands on.
func (m move) To() int { return m.to() }

// IsDrop reports whether the move drops a piece from hand.
func (m move) IsDrop() bool { return m.isDrop() }

// Promotes reports whether the move promotes the piece.
func (m move) Promotes() bool { return m.promote() }

// Kind is the piece's kind (0 for an empty square).
func (p piece) Kind() int { return p.kind() }

// Owner is the piece's seat, or Ownerless.
func (p piece) Owner() int { return p.owner() }

// Promoted reports whether the piece is promoted.
func (p piece) Promoted() bool { return p.promoted() }

// Active reports whether the piece moves and attacks (owned, not a flipped king).
func (p piece) Active() bool { return p.active() }

// Neighbours lists the squares next to sq (up to eight).
func Neighbours(sq int) []int {
	out := make([]int, 0, 8)
	for _, n := range neighbour[sq] {
		if n >= 0 {
			out = append(out, int(n))
		}
	}
	return out
}

// Neighbour is the square next to sq in direction d (0–7 clockwise from up
// as seen by South), or -1 off the board.
func Neighbour(sq, d int) int { return int(neighbour[sq][d]) }

// Turn is the seat to move, or -1 once the position has ended by mates.
func (p *Position) Turn() int { return int(p.turn) }

// Live reports whether the seat is still playing.
func (p *Position) Live(seat int) bool { return p.live(seat) }

// InCheck reports whether a live seat's king is attacked (from the cache
// that Play keeps).
func (p *Position) InCheck(seat int) bool { return p.checks&(1<<seat) != 0 }

// Mates is the number of mates so far.
func (p *Position) Mates() int { return int(p.nmates) }

// Mated returns the seat mated n-th (from 0) and the seat credited (-1: nobody).
func (p *Position) Mated(n int) (mated, mater int) {
	return int(p.mates[n].mated), int(p.mates[n].mater)
}

// At is the piece on sq.
func (p *Position) At(sq int) Piece { return p.board[sq] }

// Hand is how many pieces of the kind the seat holds.
func (p *Position) Hand(seat, kind int) int { return int(p.hands[seat][kind]) }

// King is the seat's king square.
func (p *Position) King(seat int) int { return int(p.kings[seat]) }

// Attacked reports whether sq is attacked by an active piece of a seat other than not.
func (p *Position) Attacked(sq, not int) bool { return p.attacked(sq, not) }

// Attackers counts the active pieces of seats other than not attacking sq.
func (p *Position) Attackers(sq, not int) int {
	s := p.attackers(sq, not)
	return popcount(s[0]) + popcount(s[1])
}

// AttackersBy counts the pieces of seat by attacking sq.
func (p *Position) AttackersBy(sq, by int) int {
	n := 0
	s := p.attackers(sq, -1)
	for i := range 81 {
		if s.has(i) && p.board[i].owner() == by {
			n++
		}
	}
	return n
}

func popcount(x uint64) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// PieceCount is what places count: the seat's pieces on the board and in
// hand, plus the flipped kings of the seats it mated.
func (p *Position) PieceCount(seat int) int { return p.pieceCount(seat, true) }

// LegalMoves appends the legal moves of the seat to move (none once ended).
func (p *Position) LegalMoves(out []Move) []Move { return p.legalMoves(out) }

// LegalCaptures appends the legal board moves of the seat to move that
// capture a piece, for the engine's quiescence search.
func (p *Position) LegalCaptures(out []Move) []Move {
	if p.turn < 0 {
		return out
	}
	seat := int(p.turn)
	partner := p.partner(seat)
	start := len(out)
	var buf [128]move
	for from, pc := range p.board {
		if pc == 0 || pc.owner() != seat || pc.flipped() {
			continue
		}
		for _, m := range p.pieceMoves(seat, partner, from, pc, buf[:0]) {
			if p.board[m.to()] != 0 {
				out = append(out, m)
			}
		}
	}
	return p.keepLegal(seat, out, start)
}

// Play applies a legal move of the seat to move and settles who moves next:
// check priority, mates, transfers and the end by mates.
func (p *Position) Play(m Move) { p.play(m) }

// Hash is a 64-bit digest of what repetition compares: the board with
// owners and facings, the hands, the seat to move and the mated seats.
func (p *Position) Hash() uint64 {
	h := uint64(p.turn+2)*0x9E3779B97F4A7C15 ^ uint64(p.elim)<<56
	for sq, pc := range p.board {
		if pc != 0 {
			h ^= mix64(uint64(pc)<<8 | uint64(sq))
		}
	}
	for s := range 4 {
		for _, k := range handKinds {
			if n := p.hands[s][k]; n != 0 {
				h ^= mix64(1<<40 | uint64(s)<<24 | uint64(k)<<16 | uint64(n))
			}
		}
	}
	return h
}

// mix64 is splitmix64's finaliser.
func mix64(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// MoveText writes seat's move in the notation.
func MoveText(seat int, m Move) sdk.Move { return sdk.Move(moveText(seat, m)) }

// DecodeState opens and replays a game's state.
func DecodeState(s sdk.State) (*Game, error) {
	g, err := replayState(s)
	if err != nil {
		return nil, err
	}
	return &Game{g}, nil
}

// Position is a copy of the game's current position.
func (g *Game) Position() Position { return g.g.pos }

// Ply is the number of moves played.
func (g *Game) Ply() int { return len(g.g.moves) }

// Over reports whether the game has ended.
func (g *Game) Over() bool { return g.g.end != "" }

// LegalMoves lists the legal moves of the seat to move, after the
// repetition rule.
func (g *Game) LegalMoves() []Move { return g.g.legal() }

// Repeats is how often the position after m would then have occurred, so
// 4 ends the game by repetition.
func (g *Game) Repeats(m Move) int {
	o := g.g.try(m)
	return g.g.counts[o.pos.key()] + 1
}

// PlacesAfterRepetition is how the game would rank the seats if it ended by
// repetition in position p.
func PlacesAfterRepetition(p *Position) []int {
	g := &game{pos: *p, end: reasonRepetition}
	return g.places()
}

// Pairs reports whether opposite seats play as teams.
func (p *Position) Pairs() bool { return p.rules.Pairs }

// SquareSet is a set of board squares: bit sq%64 of word sq/64.
type SquareSet = squareSet

// Has reports whether sq is in the set.
func (s squareSet) Has(sq int) bool { return s.has(sq) }

// Len is the number of squares in the set.
func (s squareSet) Len() int { return popcount(s[0]) + popcount(s[1]) }

// And is the intersection of two sets.
func (s squareSet) And(o squareSet) squareSet { return squareSet{s[0] & o[0], s[1] & o[1]} }

// Or is the union of two sets.
func (s squareSet) Or(o squareSet) squareSet { return squareSet{s[0] | o[0], s[1] | o[1]} }

// KingZone is sq and its neighbours.
func KingZone(sq int) SquareSet { return kingZone[sq] }

var kingZone [81]squareSet

func init() {
	for sq := range 81 {
		kingZone[sq].add(sq)
		for _, n := range neighbour[sq] {
			if n >= 0 {
				kingZone[sq].add(int(n))
			}
		}
	}
}

// AttackMaps returns, per seat, the squares its active pieces attack
// (whatever stands there), in one pass over the board for the evaluation.
func (p *Position) AttackMaps() (maps [4]SquareSet) {
	for sq, pc := range p.board {
		if !pc.active() {
			continue
		}
		m := &maps[pc.owner()]
		sh := pc.shape()
		t := &stepTargets[sh][sq]
		for _, n := range t[1 : 1+t[0]] {
			m.add(int(n))
		}
		if !slides[sh] {
			continue
		}
		for d := 0; d < 8; d += 2 {
			for n := neighbour[sq][d]; n >= 0; n = neighbour[n][d] {
				m.add(int(n))
				if p.board[n] != 0 {
					break
				}
			}
		}
	}
	return maps
}

// SetTurn makes seat the seat to move, for a search that lets the seats
// move out of turn (best-reply search lets any opponent answer the root).
// Everything else follows the rules: LegalMoves lists seat's moves as they
// would be if it were seat's turn, and Play settles who moves after them by
// check priority, mates and transfers as usual. It reports false, changing
// nothing, when seat could not be to move in a position the rules reach:
// the game is over, seat is mated, or some seat is in check (then check
// priority has already chosen the seat to move, and only it may be given).
func (p *Position) SetTurn(seat int) bool {
	if p.turn < 0 || seat < 0 || seat > 3 || !p.live(seat) || p.checks != 0 && seat != int(p.turn) {
		return false
	}
	p.turn = int8(seat)
	return true
}
