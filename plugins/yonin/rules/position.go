package rules

// Rules are the settings of SPEC §4 that change what is legal or how a game
// ends. They travel inside the position text.
type Rules struct {
	// Pairs makes opposite seats a team (0+2 against 1+3).
	Pairs bool
	// LastPlayer plays on to the last player instead of ending after two
	// mates (singles only).
	LastPlayer bool
	// Ownerless leaves a mated player's board pieces ownerless instead of
	// giving them to the mater.
	Ownerless bool
	// Limit is the total number of moves after which the game ends (0: none).
	Limit int
}

// mateRecord is one mate: the mated seat and the seat credited with it
// (noCredit when nobody's move came before it).
type mateRecord struct {
	mated, mater int8
}

const noCredit = -1

// Position is a validated Yonin position: board, hands, seat to move, mates
// so far and the rules in force. It has no pointers, so a copy is a
// snapshot; search copies it freely.
type Position struct {
	board [81]piece
	hands [4][numKinds]uint8
	kings [4]int8 // each seat's king square (flipped once mated)
	// rooks are the squares of the rooks and dragons on the board (-1 for
	// one in a hand or absent): the only sliders, looked at directly when
	// testing attacks instead of walking rays.
	rooks  [4]int8
	turn   int8  // seat to move; -1 once the game has ended by mates
	elim   uint8 // bit per mated seat
	nmates int8
	mates  [3]mateRecord
	rules  Rules
	ply    int // moves played since the game's start
	// checks caches which live seats are in check, as resolve (or the
	// parser) left the position; a doMove/undoMove pair keeps it true.
	checks uint8
}

// cacheChecks records which live seats are in check.
func (p *Position) cacheChecks() {
	p.checks = 0
	for s := range 4 {
		if p.inCheck(s) {
			p.checks |= 1 << s
		}
	}
}

// seatFacing is the facing of a seat's own pieces: South up, West right,
// North down, East left.
func seatFacing(seat int) int { return seat }

// live reports whether seat is still playing.
func (p *Position) live(seat int) bool { return p.elim&(1<<seat) == 0 }

// liveCount is the number of seats still playing.
func (p *Position) liveCount() int {
	n := 0
	for s := range 4 {
		if p.live(s) {
			n++
		}
	}
	return n
}

// partner is the seat's teammate in pairs, or -1 in singles.
func (p *Position) partner(seat int) int {
	if !p.rules.Pairs {
		return -1
	}
	return (seat + 2) & 3
}

// Score is the number of mates credited to seat.
func (p *Position) Score(seat int) int {
	n := 0
	for _, m := range p.mates[:p.nmates] {
		if int(m.mater) == seat {
			n++
		}
	}
	return n
}

// startPosition is the SPEC §4 setup with the given rules and first seat.
func startPosition(r Rules, first int) Position {
	var p Position
	p.rules = r
	p.turn = int8(first)
	// South's setup, as (row, col, kind), turned to every seat's edge.
	setup := []struct{ r, c, k int }{
		{8, 2, kindSilver}, {8, 3, kindGold}, {8, 4, kindKing}, {8, 5, kindGold}, {8, 6, kindSilver},
		{7, 3, kindPawn}, {7, 4, kindRook}, {7, 5, kindPawn},
		{6, 4, kindPawn},
	}
	for seat := range 4 {
		for _, s := range setup {
			r, c := s.r, s.c
			for range seat { // a quarter turn clockwise about the centre per seat
				r, c = c, 8-r
			}
			sq := r*9 + c
			p.board[sq] = makePiece(s.k, seat, seatFacing(seat), false)
			if s.k == kindKing {
				p.kings[seat] = int8(sq)
			}
		}
	}
	p.findRooks()
	return p
}

// findRooks fills the rook squares from the board.
func (p *Position) findRooks() {
	p.rooks = [4]int8{-1, -1, -1, -1}
	i := 0
	for sq, pc := range p.board {
		if pc.kind() == kindRook && i < len(p.rooks) {
			p.rooks[i] = int8(sq)
			i++
		}
	}
}

// moveRook changes a rook's square from one value to another (-1: off the board).
func (p *Position) moveRook(from, to int8) {
	for i, r := range p.rooks {
		if r == from {
			p.rooks[i] = to
			return
		}
	}
}

// attacked reports whether sq is attacked by an active piece of any seat
// other than not (checks come from every other seat, partners included).
func (p *Position) attacked(sq, not int) bool {
	for d := range 8 {
		n := neighbour[sq][d]
		if n < 0 {
			continue
		}
		if pc := p.board[n]; pc.active() && pc.owner() != not && stepMask[pc.shape()]&(1<<((d+4)&7)) != 0 {
			return true
		}
	}
	for _, r := range p.rooks {
		if r < 0 {
			continue
		}
		if pc := p.board[r]; pc.active() && pc.owner() != not && p.clearLine(int(r), sq) {
			return true
		}
	}
	return false
}

// clearLine reports whether a and b share a rank or a file with nothing
// between them.
func (p *Position) clearLine(a, b int) bool {
	step := 0
	switch {
	case a/9 == b/9:
		step = 1
	case a%9 == b%9:
		step = 9
	default:
		return false
	}
	if a > b {
		a, b = b, a
	}
	for x := a + step; x < b; x += step {
		if p.board[x] != 0 {
			return false
		}
	}
	return true
}

// attackers returns the squares (as a bit set) of the active pieces of seats
// other than not that attack sq, and of them the ones owned by only (when
// only >= 0).
func (p *Position) attackers(sq, not int) squareSet {
	var set squareSet
	for d := range 8 {
		n := neighbour[sq][d]
		if n < 0 {
			continue
		}
		pc := p.board[n]
		if pc.active() && pc.owner() != not {
			sh := pc.shape()
			if stepMask[sh]&(1<<((d+4)&7)) != 0 || (d&1 == 0 && slides[sh]) {
				set.add(int(n))
			}
		}
		if d&1 != 0 || pc != 0 {
			continue
		}
		for n = neighbour[n][d]; n >= 0; n = neighbour[n][d] {
			if pc := p.board[n]; pc != 0 {
				if pc.active() && pc.owner() != not && slides[pc.shape()] {
					set.add(int(n))
				}
				break
			}
		}
	}
	return set
}

// squareSet is a set of board squares.
type squareSet [2]uint64

func (s *squareSet) add(sq int)     { s[sq>>6] |= 1 << (sq & 63) }
func (s squareSet) has(sq int) bool { return s[sq>>6]&(1<<(sq&63)) != 0 }
func (s squareSet) empty() bool     { return s[0]|s[1] == 0 }
func (s squareSet) minus(o squareSet) squareSet {
	return squareSet{s[0] &^ o[0], s[1] &^ o[1]}
}

// inCheck reports whether a live seat's king is attacked.
func (p *Position) inCheck(seat int) bool {
	return p.live(seat) && p.attacked(int(p.kings[seat]), seat)
}

// checksBy reports whether a piece of seat attacks the king of another live seat.
func (p *Position) checksBy(seat int) bool {
	for s := range 4 {
		if s == seat || !p.live(s) {
			continue
		}
		for _, sq := range p.attackers(int(p.kings[s]), s).squares() {
			if p.board[sq].owner() == seat {
				return true
			}
		}
	}
	return false
}

func (s squareSet) squares() []int {
	var out []int
	for i := range 81 {
		if s.has(i) {
			out = append(out, i)
		}
	}
	return out
}

// key is the identity of a position for repetition: board with owners,
// facings and flipped kings, all hands, the seat to move and the mated seats.
func (p *Position) key() string {
	b := make([]byte, 0, 81*2+4*4+2)
	for _, pc := range p.board {
		b = append(b, byte(pc), byte(pc>>8))
	}
	for s := range 4 {
		for _, k := range handKinds {
			b = append(b, p.hands[s][k])
		}
	}
	return string(append(b, byte(p.turn), p.elim))
}

// pieceCount is what places count after mates: the seat's own pieces on the
// board and in hand, plus (when withKings) the flipped kings of the seats it
// mated.
func (p *Position) pieceCount(seat int, withKings bool) int {
	n := 0
	for _, pc := range p.board {
		if pc != 0 && pc.owner() == seat && !pc.flipped() {
			n++
		}
	}
	for _, k := range handKinds {
		n += int(p.hands[seat][k])
	}
	if withKings {
		n += p.Score(seat)
	}
	return n
}
