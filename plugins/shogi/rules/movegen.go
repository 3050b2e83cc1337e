package rules

// The move generator is legal by construction: it finds the checkers and the
// pinned pieces first, then only emits moves that keep the king safe, so no
// move has to be tried and taken back. Drops are counted without being
// generated at the last ply of perft (bulk counting).

// genCtx is what the generator learns about a position on its way.
type genCtx struct {
	checkers int
	// block marks, in single check, the cells where a non-king move answers
	// it: the checker's cell and the cells between it and the king.
	block [mbSize]bool
	// between lists the empty cells between a sliding checker and the king:
	// the only cells a drop may answer a check on.
	between  [7]int
	nBetween int
	// pinned holds dir8 index + 1 of the line a pinned piece must keep to.
	pinned [mbSize]int8
	// Empty-cell counts for counting drops, and the files that already hold
	// an unpromoted pawn of the side to move (nifu).
	nEmpty    int
	emptyRow  [9]int
	emptyCol  [9]int
	pawnFiles uint16
}

// lastRow and secondRow are the far ranks of each colour.
var (
	lastRow   = [2]int{0, 8}
	secondRow = [2]int{1, 7}
)

// zone[c][sq] is true when sq is in colour c's promotion zone.
var zone [2][mbSize]bool

// forced[c][k][sq] is true when an unpromoted kind k of colour c has no move
// on sq (it must promote to go there and may not be dropped there).
var forced [2][8][mbSize]bool

// initZones runs after the square tables exist (from position.go's init).
func initZones() {
	for c := 0; c < 2; c++ {
		for _, sq := range squares {
			zone[c][sq] = inZone(c, rowOf[sq])
			for k := pawn; k <= gold; k++ {
				forced[c][k][sq] = mustPromote(c, k, rowOf[sq])
			}
		}
	}
}

// checkInfo fills in the checkers and pinned pieces of the side to move,
// whose king stands on ks.
func (p *Position) checkInfo(ks int, g *genCtx) {
	c := p.side
	eflag := colorFlag[c^1]
	for i, d := range dir8 {
		q := ks + d
		for p.b[q] == 0 {
			q += d
		}
		pc := p.b[q]
		opp := uint8(1) << ((i + 4) & 7)
		if pc&colorMask == eflag {
			if slideMask[pc]&opp != 0 || (q == ks+d && stepMask[pc]&opp != 0) {
				g.checkers++
				// Drops may only block a single check: the cells between
				// a second checker and the king are not needed.
				for s := ks + d; s != q; s += d {
					g.block[s] = true
					if g.checkers == 1 {
						g.between[g.nBetween] = s
						g.nBetween++
					}
				}
				g.block[q] = true
			}
			continue
		}
		if pc == wall {
			continue
		}
		// An own piece: pinned if an enemy slider stands behind it.
		q2 := q + d
		for p.b[q2] == 0 {
			q2 += d
		}
		if pc2 := p.b[q2]; pc2&colorMask == eflag && slideMask[pc2]&opp != 0 {
			g.pinned[q] = int8(i + 1)
		}
	}
	kn := makePiece(c^1, knight)
	f2 := 2 * forward[c^1]
	for _, q := range [2]int{ks - f2 - 1, ks - f2 + 1} {
		if p.b[q] == kn {
			g.checkers++
			g.block[q] = true
		}
	}
}

// addMoves appends the move from → to of an unpromoted or promoted kind k,
// in both forms when promotion is optional.
func addMoves(list []Move, c, k, from, to int) []Move {
	if k <= rook && (zone[c][from] || zone[c][to]) {
		list = append(list, boardMove(from, to, true))
		if forced[c][k][to] {
			return list
		}
	}
	return append(list, boardMove(from, to, false))
}

// genBoard appends every legal board move of the side to move and records in
// g what the drop generator and counter need.
func (p *Position) genBoard(list []Move, g *genCtx) []Move {
	c := p.side
	flag := colorFlag[c]
	ks := p.kingSq[c]
	if ks != 0 {
		p.checkInfo(ks, g)
	}
	if g.checkers < 2 {
		inCheck := g.checkers == 1
		for _, sq := range squares {
			pc := p.b[sq]
			if pc == 0 {
				g.nEmpty++
				g.emptyRow[rowOf[sq]]++
				g.emptyCol[colOf[sq]]++
				continue
			}
			if pc&colorMask != flag {
				continue
			}
			k := kindOf(pc)
			if k == king {
				continue
			}
			if k == pawn {
				g.pawnFiles |= 1 << colOf[sq]
			}
			pd := 0
			if pin := g.pinned[sq]; pin != 0 {
				pd = dir8[pin-1]
			}
			for _, d := range stepDirs[pc] {
				if pd != 0 && d != pd && d != -pd {
					continue
				}
				to := sq + d
				if p.b[to]&flag != 0 || (inCheck && !g.block[to]) {
					continue
				}
				list = addMoves(list, c, k, sq, to)
			}
			for _, d := range slideDirs[pc] {
				if pd != 0 && d != pd && d != -pd {
					continue
				}
				for to := sq + d; ; to += d {
					t := p.b[to]
					if t&flag != 0 {
						break
					}
					if !inCheck || g.block[to] {
						list = addMoves(list, c, k, sq, to)
					}
					if t != 0 {
						break
					}
				}
			}
		}
	}
	if ks != 0 {
		// The king is lifted so that a slider's check reaches through it.
		p.b[ks] = 0
		for _, d := range dir8 {
			to := ks + d
			if p.b[to]&flag != 0 {
				continue
			}
			if !p.attacked(to, c^1) {
				list = append(list, boardMove(ks, to, false))
			}
		}
		p.b[ks] = makePiece(c, king)
	}
	return list
}

// genDrops appends every legal drop, after genBoard has filled g.
func (p *Position) genDrops(list []Move, g *genCtx) []Move {
	c := p.side
	h := &p.hand[c]
	var kinds [7]int
	n := 0
	for k := pawn; k <= gold; k++ {
		if h[k] > 0 {
			kinds[n] = k
			n++
		}
	}
	if n == 0 || g.checkers >= 2 {
		return list
	}
	drop := func(sq int) {
		for _, k := range kinds[:n] {
			if forced[c][k][sq] {
				continue
			}
			if k == pawn && (g.pawnFiles&(1<<colOf[sq]) != 0 || p.pawnDropMates(sq)) {
				continue
			}
			list = append(list, dropMove(k, sq))
		}
	}
	if g.checkers == 1 {
		for _, sq := range g.between[:g.nBetween] {
			drop(sq)
		}
		return list
	}
	for _, sq := range squares {
		if p.b[sq] == 0 {
			drop(sq)
		}
	}
	return list
}

// countDrops counts the legal drops when the side to move is not in check,
// from the empty-cell counts alone.
func (p *Position) countDrops(g *genCtx) int {
	c := p.side
	h := &p.hand[c]
	n := 0
	for _, k := range [4]int{silver, gold, bishop, rook} {
		if h[k] > 0 {
			n += g.nEmpty
		}
	}
	last, second := lastRow[c], secondRow[c]
	if h[lance] > 0 {
		n += g.nEmpty - g.emptyRow[last]
	}
	if h[knight] > 0 {
		n += g.nEmpty - g.emptyRow[last] - g.emptyRow[second]
	}
	if h[pawn] > 0 {
		for col := 0; col < 9; col++ {
			if g.pawnFiles&(1<<col) != 0 {
				continue
			}
			n += g.emptyCol[col]
			if p.b[mb(last, col)] == 0 {
				n--
			}
		}
		if ek := p.kingSq[c^1]; ek != 0 {
			ds := ek - forward[c]
			if p.b[ds] == 0 && g.pawnFiles&(1<<colOf[ds]) == 0 && p.pawnDropMates(ds) {
				n--
			}
		}
	}
	return n
}

// pawnDropMates tells whether a pawn dropped on sq by the side to move would
// give mate (uchifuzume, forbidden). Only a drop right in front of the enemy
// king can; the test plays it and asks whether the defender has any move,
// so pins, defended pawns and escape squares are judged with the pawn on the
// board.
func (p *Position) pawnDropMates(sq int) bool {
	ek := p.kingSq[p.side^1]
	if ek == 0 || sq+forward[p.side] != ek {
		return false
	}
	m := dropMove(pawn, sq)
	u := p.do(m)
	var buf [64]Move
	var g genCtx
	// A pawn's check is a contact check: no drop can answer it.
	has := len(p.genBoard(buf[:0], &g)) > 0
	p.undo(m, u)
	return !has
}

// legalMoves appends every legal move of the side to move.
func (p *Position) legalMoves(list []Move) []Move {
	var g genCtx
	list = p.genBoard(list, &g)
	return p.genDrops(list, &g)
}

// countLegal counts the legal moves of the side to move.
func (p *Position) countLegal() int {
	var buf [maxMoves]Move
	var g genCtx
	list := p.genBoard(buf[:0], &g)
	if g.checkers > 0 {
		return len(p.genDrops(list, &g))
	}
	return len(list) + p.countDrops(&g)
}

// maxMoves bounds the legal moves of any position (593 is the most known).
const maxMoves = 1024

// hasLegal tells whether the side to move has any legal move.
func (p *Position) hasLegal() bool {
	return p.countLegal() > 0
}

// isLegal tells whether m is one of the legal moves.
func (p *Position) isLegal(m Move) bool {
	var buf [maxMoves]Move
	for _, x := range p.legalMoves(buf[:0]) {
		if x == m {
			return true
		}
	}
	return false
}

// genCaptures appends the legal captures of the side to move, which must
// not be in check (both promotion forms where promotion is optional), and
// the pawn promotions that capture nothing. It is the quiescence search's
// generator: it never builds the quiet moves and drops it would throw away.
func (p *Position) genCaptures(list []Move, g *genCtx) []Move {
	c := p.side
	flag := colorFlag[c]
	eflag := colorFlag[c^1]
	ks := p.kingSq[c]
	if ks != 0 {
		p.checkInfo(ks, g)
	}
	for _, sq := range squares {
		pc := p.b[sq]
		if pc&colorMask != flag {
			continue
		}
		k := kindOf(pc)
		if k == king {
			continue
		}
		pd := 0
		if pin := g.pinned[sq]; pin != 0 {
			pd = dir8[pin-1]
		}
		for _, d := range stepDirs[pc] {
			if pd != 0 && d != pd && d != -pd {
				continue
			}
			to := sq + d
			t := p.b[to]
			if t&colorMask == eflag && t != wall {
				list = addMoves(list, c, k, sq, to)
			} else if t == 0 && k == pawn && zone[c][to] {
				list = append(list, boardMove(sq, to, true))
			}
		}
		for _, d := range slideDirs[pc] {
			if pd != 0 && d != pd && d != -pd {
				continue
			}
			to := sq + d
			for p.b[to] == 0 {
				to += d
			}
			if t := p.b[to]; t&colorMask == eflag && t != wall {
				list = addMoves(list, c, k, sq, to)
			}
		}
	}
	if ks != 0 {
		p.b[ks] = 0
		for _, d := range dir8 {
			to := ks + d
			if t := p.b[to]; t&colorMask == eflag && t != wall && !p.attacked(to, c^1) {
				list = append(list, boardMove(ks, to, false))
			}
		}
		p.b[ks] = makePiece(c, king)
	}
	return list
}
