package rules

// A deliberately simple, slow Yonin move generator written only to check the
// engine's perft counts. It shares no code with the engine's move generation:
// pieces are structs in a map, moves are vectors turned by the facing,
// attacks are found by generating every other piece's moves, and every move
// is tried on a deep copy. It reads positions through the engine's Position
// (whose parser has its own tests) or builds the start position itself.

type refPiece struct {
	kind     byte // 'K' 'R' 'G' 'S' 'P'
	owner    int  // 0–3, or -1 for nobody
	facing   int
	promoted bool
	flipped  bool
}

type refXY struct{ x, y int }

type refPos struct {
	cells                        map[refXY]refPiece
	hand                         [4]map[byte]int
	turn                         int
	dead                         [4]bool
	mates                        int
	pairs, lastPlayer, ownerless bool
}

type refMove struct {
	drop     byte // 0 for a board move
	from, to refXY
	promote  bool
}

// turn rotates a vector by quarter turns clockwise (y grows downwards).
func refTurn(v refXY, facing int) refXY {
	for range facing {
		v = refXY{-v.y, v.x}
	}
	return v
}

func onBoard(c refXY) bool { return c.x >= 0 && c.x < 9 && c.y >= 0 && c.y < 9 }

var (
	refGold   = []refXY{{0, -1}, {-1, -1}, {1, -1}, {-1, 0}, {1, 0}, {0, 1}}
	refSilver = []refXY{{0, -1}, {-1, -1}, {1, -1}, {-1, 1}, {1, 1}}
	refKing   = []refXY{{0, -1}, {-1, -1}, {1, -1}, {-1, 0}, {1, 0}, {0, 1}, {-1, 1}, {1, 1}}
	refOrtho  = []refXY{{0, -1}, {0, 1}, {-1, 0}, {1, 0}}
	refDiag   = []refXY{{-1, -1}, {1, -1}, {-1, 1}, {1, 1}}
)

// reach lists the squares a piece at c moves to or attacks, ignoring who
// stands on the last square of each line.
func (p *refPos) reach(c refXY, pc refPiece) []refXY {
	var steps, slidesV []refXY
	switch {
	case pc.kind == 'K':
		steps = refKing
	case pc.kind == 'R' && pc.promoted:
		steps, slidesV = refDiag, refOrtho
	case pc.kind == 'R':
		slidesV = refOrtho
	case pc.kind == 'G' || pc.promoted:
		steps = refGold
	case pc.kind == 'S':
		steps = refSilver
	case pc.kind == 'P':
		steps = []refXY{{0, -1}}
	}
	var out []refXY
	for _, s := range steps {
		d := refTurn(s, pc.facing)
		if n := (refXY{c.x + d.x, c.y + d.y}); onBoard(n) {
			out = append(out, n)
		}
	}
	for _, s := range slidesV {
		d := refTurn(s, pc.facing)
		for n := (refXY{c.x + d.x, c.y + d.y}); onBoard(n); n = (refXY{n.x + d.x, n.y + d.y}) {
			out = append(out, n)
			if _, ok := p.cells[n]; ok {
				break
			}
		}
	}
	return out
}

func (p *refPos) king(seat int) refXY {
	for c, pc := range p.cells {
		if pc.kind == 'K' && pc.owner == seat {
			return c
		}
	}
	panic("no king")
}

// attackers lists the squares of other seats' working pieces that reach c.
func (p *refPos) attackers(c refXY, seat int) map[refXY]bool {
	out := map[refXY]bool{}
	for from, pc := range p.cells {
		if pc.owner < 0 || pc.owner == seat || pc.flipped {
			continue
		}
		for _, t := range p.reach(from, pc) {
			if t == c {
				out[from] = true
			}
		}
	}
	return out
}

func (p *refPos) checked(seat int) bool {
	return !p.dead[seat] && len(p.attackers(p.king(seat), seat)) > 0
}

// far is how many squares lie ahead of c for a piece of that facing.
func far(c refXY, facing int) int {
	d := refTurn(refXY{0, -1}, facing)
	n := 0
	for c = (refXY{c.x + d.x, c.y + d.y}); onBoard(c); c = (refXY{c.x + d.x, c.y + d.y}) {
		n++
	}
	return n
}

func (p *refPos) clone() *refPos {
	q := *p
	q.cells = make(map[refXY]refPiece, len(p.cells))
	for k, v := range p.cells {
		q.cells[k] = v
	}
	for s := range 4 {
		q.hand[s] = map[byte]int{}
		for k, v := range p.hand[s] {
			q.hand[s][k] = v
		}
	}
	return &q
}

func (p *refPos) partnerOf(seat int) int {
	if p.pairs {
		return (seat + 2) % 4
	}
	return -1
}

// candidates are the moves of seat before the king-safety and look-ahead rules.
func (p *refPos) candidates(seat int) []refMove {
	var out []refMove
	for from, pc := range p.cells {
		if pc.owner != seat || pc.flipped {
			continue
		}
		for _, to := range p.reach(from, pc) {
			if t, ok := p.cells[to]; ok && (t.owner == seat || t.kind == 'K' || (t.owner >= 0 && t.owner == p.partnerOf(seat))) {
				continue
			}
			canPromote := !pc.promoted && (pc.kind == 'R' || pc.kind == 'S' || pc.kind == 'P')
			if canPromote && (far(from, pc.facing) <= 2 || far(to, pc.facing) <= 2) {
				out = append(out, refMove{from: from, to: to, promote: true})
				if pc.kind == 'P' && far(to, pc.facing) == 0 {
					continue
				}
			}
			out = append(out, refMove{from: from, to: to})
		}
	}
	for kind, n := range p.hand[seat] {
		if n == 0 {
			continue
		}
		for y := range 9 {
			for x := range 9 {
				to := refXY{x, y}
				if _, ok := p.cells[to]; ok {
					continue
				}
				if kind == 'P' {
					if far(to, seat) == 0 {
						continue
					}
					d := refTurn(refXY{0, -1}, seat)
					if ahead, ok := p.cells[refXY{x + d.x, y + d.y}]; ok && ahead.flipped {
						continue
					}
					doubled := false
					for k := -8; k <= 8; k++ {
						c := refXY{x + k*d.x, y + k*d.y}
						if pc, ok := p.cells[c]; ok && pc.kind == 'P' && !pc.promoted && pc.owner == seat && pc.facing == seat {
							doubled = true
						}
					}
					if doubled {
						continue
					}
				}
				out = append(out, refMove{drop: kind, to: to})
			}
		}
	}
	return out
}

func (p *refPos) apply(seat int, m refMove) {
	if m.drop != 0 {
		p.hand[seat][m.drop]--
		p.cells[m.to] = refPiece{kind: m.drop, owner: seat, facing: seat}
		return
	}
	pc := p.cells[m.from]
	if t, ok := p.cells[m.to]; ok {
		p.hand[seat][t.kind]++
	}
	delete(p.cells, m.from)
	pc.promoted = pc.promoted || m.promote
	p.cells[m.to] = pc
}

func (p *refPos) legalMoves(seat int, depth int) []refMove {
	return p.legalUpTo(seat, depth, -1)
}

// legalUpTo lists up to limit legal moves (all when limit < 0).
func (p *refPos) legalUpTo(seat, depth, limit int) []refMove {
	var out []refMove
	partner := p.partnerOf(seat)
	var before map[refXY]bool
	if partner >= 0 && !p.dead[partner] {
		before = p.attackers(p.king(partner), partner)
	}
	for _, m := range p.candidates(seat) {
		q := p.clone()
		q.apply(seat, m)
		if q.checked(seat) {
			continue
		}
		if before != nil {
			after := q.attackers(q.king(partner), partner)
			fresh := after[m.to]
			for c := range after {
				fresh = fresh || !before[c]
			}
			if fresh {
				continue
			}
		}
		if m.drop == 'P' && depth < maxResolveDepth {
			d := refTurn(refXY{0, -1}, seat)
			if k, ok := q.cells[refXY{m.to.x + d.x, m.to.y + d.y}]; ok && k.kind == 'K' && !k.flipped && k.owner != seat {
				q.settle(seat, depth+1)
				if q.dead[k.owner] {
					continue
				}
			}
		}
		out = append(out, m)
		if len(out) == limit {
			break
		}
	}
	return out
}

func (p *refPos) ended() bool {
	live := 0
	for _, d := range p.dead {
		if !d {
			live++
		}
	}
	switch {
	case p.pairs:
		return p.mates >= 1
	case p.lastPlayer:
		return live <= 1
	}
	return p.mates >= 2
}

// settle decides who moves after mover, mating players left without a move.
func (p *refPos) settle(mover, depth int) {
	from := mover
	for {
		if p.ended() {
			p.turn = -1
			return
		}
		next := -1
		for i := 1; i <= 3 && next < 0; i++ {
			if s := (from + i) % 4; p.checked(s) {
				next = s
			}
		}
		for i := 1; i <= 3 && next < 0; i++ {
			if s := (from + i) % 4; !p.dead[s] {
				next = s
			}
		}
		if len(p.legalUpTo(next, depth, 1)) > 0 {
			p.turn = next
			return
		}
		credit := mover
		if p.dead[mover] || mover == next {
			credit = -1
		}
		p.dead[next] = true
		p.mates++
		kc := p.king(next)
		k := p.cells[kc]
		k.flipped = true
		p.cells[kc] = k
		if credit >= 0 {
			for kind, n := range p.hand[next] {
				p.hand[credit][kind] += n
			}
		}
		p.hand[next] = map[byte]int{}
		heir := credit
		if p.ownerless {
			heir = -1
		}
		for c, pc := range p.cells {
			if pc.owner == next && pc.kind != 'K' {
				pc.owner = heir
				p.cells[c] = pc
			}
		}
		from = next
	}
}

func (p *refPos) perft(depth int) uint64 {
	moves := p.legalMoves(p.turn, 0)
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		q := p.clone()
		q.apply(p.turn, m)
		q.settle(p.turn, 0)
		if q.turn >= 0 {
			n += q.perft(depth - 1)
		}
	}
	return n
}

// refStart builds the start position from South's setup, turned to each edge.
func refStart() *refPos {
	p := &refPos{cells: map[refXY]refPiece{}}
	south := map[refXY]byte{{2, 8}: 'S', {3, 8}: 'G', {4, 8}: 'K', {5, 8}: 'G', {6, 8}: 'S', {3, 7}: 'P', {4, 7}: 'R', {5, 7}: 'P', {4, 6}: 'P'}
	for seat := range 4 {
		p.hand[seat] = map[byte]int{}
		for c, k := range south {
			v := refTurn(refXY{c.x - 4, c.y - 4}, seat)
			p.cells[refXY{v.x + 4, v.y + 4}] = refPiece{kind: k, owner: seat, facing: seat}
		}
	}
	return p
}

// refFrom reads an engine position into the reference's structures.
func refFrom(e *Position) *refPos {
	p := &refPos{cells: map[refXY]refPiece{}, turn: int(e.turn), mates: int(e.nmates),
		pairs: e.rules.Pairs, lastPlayer: e.rules.LastPlayer, ownerless: e.rules.Ownerless}
	for sq, pc := range e.board {
		if pc == 0 {
			continue
		}
		owner := pc.owner()
		if owner == ownerless {
			owner = -1
		}
		p.cells[refXY{sq % 9, sq / 9}] = refPiece{kind: kindLetters[pc.kind()], owner: owner, facing: pc.facing(), promoted: pc.promoted(), flipped: pc.flipped()}
	}
	for s := range 4 {
		p.dead[s] = !e.live(s)
		p.hand[s] = map[byte]int{}
		for _, k := range handKinds {
			if n := e.hands[s][k]; n > 0 {
				p.hand[s][kindLetters[k]] = int(n)
			}
		}
	}
	return p
}
