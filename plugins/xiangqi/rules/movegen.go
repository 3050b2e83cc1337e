package rules

// maxMoves bounds the pseudo-legal moves of any position: 2 rooks and 2
// cannons (17 each), 2 horses (8), 5 soldiers (3), king (4), 2 advisors (4),
// 2 elephants (4) make 119.
const maxMoves = 128

// MoveList is a fixed buffer for one ply's moves.
type MoveList struct {
	m [maxMoves]Move
	n int
}

func (l *MoveList) add(from, to Square) {
	l.m[l.n&(maxMoves-1)] = newMove(from, to)
	l.n++
}

// The eight horse jumps and, beside each, the leg: the point one step
// straight from the horse, which must be empty.
var (
	horseJump = [8]int{2*north + east, 2*north + west, 2*south + east, 2*south + west,
		2*east + north, 2*east + south, 2*west + north, 2*west + south}
	horseLeg = [8]int{north, north, south, south, east, east, west, west}
	// horseCheckLeg[i] is the leg of a horse standing at k-horseJump[i] and
	// jumping to k: the point diagonally next to k on the horse's side.
	horseCheckLeg = [8]int{south + west, south + east, north + west, north + east,
		west + south, west + north, east + south, east + north}
	diagonals  = [4]int{north + east, north + west, south + east, south + west}
	orthogonal = [4]int{north, south, east, west}
)

// generate appends every pseudo-legal move of the side to move: each piece
// moves by its rule (palace, river, eye, leg, screen), never onto its own
// side's piece; whether the own general is left attacked is not tested.
func (p *Position) generate(l *MoveList) {
	us := p.side
	own := colorBit(us)
	b := &p.board
	for i := uint8(0); i < p.n[us]; i++ {
		s := p.list[us][i&15]
		if s == NoSquare {
			continue
		}
		switch b[s].Kind() {
		case Rook:
			for _, d := range orthogonal {
				t := s.add(d)
				for b[t] == Empty {
					l.add(s, t)
					t = t.add(d)
				}
				if b[t]&own == 0 {
					l.add(s, t)
				}
			}
		case Cannon:
			for _, d := range orthogonal {
				t := s.add(d)
				for b[t] == Empty {
					l.add(s, t)
					t = t.add(d)
				}
				if b[t] == Border {
					continue
				}
				t = t.add(d)
				for b[t] == Empty {
					t = t.add(d)
				}
				if b[t]&own == 0 {
					l.add(s, t)
				}
			}
		case Horse:
			for j := range horseJump {
				if b[s.add(horseLeg[j])] == Empty {
					if t := s.add(horseJump[j]); b[t]&own == 0 {
						l.add(s, t)
					}
				}
			}
		case Pawn:
			if t := s.add(forward[us]); b[t]&own == 0 {
				l.add(s, t)
			}
			if !ownHalf[us][s] {
				if t := s.add(east); b[t]&own == 0 {
					l.add(s, t)
				}
				if t := s.add(west); b[t]&own == 0 {
					l.add(s, t)
				}
			}
		case King:
			for _, d := range orthogonal {
				if t := s.add(d); inPalace[us][t] && b[t]&own == 0 {
					l.add(s, t)
				}
			}
		case Advisor:
			for _, d := range diagonals {
				if t := s.add(d); inPalace[us][t] && b[t]&own == 0 {
					l.add(s, t)
				}
			}
		case Elephant:
			for _, d := range diagonals {
				if t := s.add(2 * d); ownHalf[us][t] && b[t]&own == 0 && b[s.add(d)] == Empty {
					l.add(s, t)
				}
			}
		}
	}
}

// generateCaptures appends the pseudo-legal captures of the side to move:
// the moves of generate that land on an enemy piece, found without walking
// the quiet moves (a slider jumps to the first piece in each direction).
func (p *Position) generateCaptures(l *MoveList) {
	us := p.side
	own := colorBit(us)
	enemy := colorBit(us ^ 1)
	b := &p.board
	// target reports whether t holds an enemy piece; Border has both colour
	// bits, so it is excluded by the own bit.
	target := func(t Square) bool { return b[t]&enemy != 0 && b[t]&own == 0 }
	for i := uint8(0); i < p.n[us]; i++ {
		s := p.list[us][i&15]
		if s == NoSquare {
			continue
		}
		switch b[s].Kind() {
		case Rook:
			for _, d := range orthogonal {
				t := s.add(d)
				for b[t] == Empty {
					t = t.add(d)
				}
				if target(t) {
					l.add(s, t)
				}
			}
		case Cannon:
			for _, d := range orthogonal {
				t := s.add(d)
				for b[t] == Empty {
					t = t.add(d)
				}
				if b[t] == Border {
					continue
				}
				t = t.add(d)
				for b[t] == Empty {
					t = t.add(d)
				}
				if target(t) {
					l.add(s, t)
				}
			}
		case Horse:
			for j := range horseJump {
				if b[s.add(horseLeg[j])] == Empty {
					if t := s.add(horseJump[j]); target(t) {
						l.add(s, t)
					}
				}
			}
		case Pawn:
			if t := s.add(forward[us]); target(t) {
				l.add(s, t)
			}
			if !ownHalf[us][s] {
				if t := s.add(east); target(t) {
					l.add(s, t)
				}
				if t := s.add(west); target(t) {
					l.add(s, t)
				}
			}
		case King:
			for _, d := range orthogonal {
				if t := s.add(d); inPalace[us][t] && target(t) {
					l.add(s, t)
				}
			}
		case Advisor:
			for _, d := range diagonals {
				if t := s.add(d); inPalace[us][t] && target(t) {
					l.add(s, t)
				}
			}
		case Elephant:
			for _, d := range diagonals {
				if t := s.add(2 * d); ownHalf[us][t] && target(t) && b[s.add(d)] == Empty {
					l.add(s, t)
				}
			}
		}
	}
}

// attacked reports whether the general of colour us, standing on k, is
// attacked by the other side: by a rook or the facing general along a line,
// a cannon over exactly one screen, a horse whose leg is free, or a soldier
// beside or in front of it. The general is always in its palace, so an enemy
// soldier there has crossed the river and attacks sideways too.
func (p *Position) attacked(k Square, us Color) bool {
	b := &p.board
	them := colorBit(us ^ 1)
	pawn := them | Piece(Pawn)
	if b[k.add(forward[us])] == pawn || b[k.add(east)] == pawn || b[k.add(west)] == pawn {
		return true
	}
	horse := them | Piece(Horse)
	for j := range horseJump {
		if b[k.add(-horseJump[j])] == horse && b[k.add(horseCheckLeg[j])] == Empty {
			return true
		}
	}
	rook, king, cannon := them|Piece(Rook), them|Piece(King), them|Piece(Cannon)
	for _, d := range orthogonal {
		t := k.add(d)
		for b[t] == Empty {
			t = t.add(d)
		}
		if pc := b[t]; pc == rook || pc == king {
			return true
		} else if pc == Border {
			continue
		}
		t = t.add(d)
		for b[t] == Empty {
			t = t.add(d)
		}
		if b[t] == cannon {
			return true
		}
	}
	return false
}

// InCheck reports whether the side to move's general is attacked.
func (p *Position) InCheck() bool { return p.attacked(p.king[p.side], p.side) }

// legal reports whether the pseudo-legal move m leaves the mover's general
// safe. A move needs the (board-only) trial only when the side is in check,
// the general moves, or the move touches a line through the general (a
// blocker or screen leaves, or a new screen arrives) or frees a horse leg
// diagonally next to it; every other move cannot expose the general.
func (p *Position) legal(m Move, inCheck bool) bool {
	us := p.side
	k := p.king[us]
	from, to := m.From(), m.To()
	if !inCheck && from != k {
		d := int(from) - int(k)
		if from&15 != k&15 && from>>4 != k>>4 && to&15 != k&15 && to>>4 != k>>4 &&
			d != 15 && d != 17 && d != -15 && d != -17 {
			return true
		}
	}
	b := &p.board
	pc, cap := b[from], b[to]
	b[to], b[from] = pc, Empty
	if from == k {
		k = to
	}
	ok := !p.attacked(k, us)
	b[from], b[to] = pc, cap
	return ok
}

// LegalMoves returns every legal move of the side to move.
func (p *Position) LegalMoves() []Move {
	var l MoveList
	p.generate(&l)
	check := p.InCheck()
	out := make([]Move, 0, l.n)
	for _, m := range l.m[:l.n] {
		if p.legal(m, check) {
			out = append(out, m)
		}
	}
	return out
}

// hasLegalMove reports whether the side to move has any legal move.
func (p *Position) hasLegalMove() bool {
	var l MoveList
	p.generate(&l)
	check := p.InCheck()
	for _, m := range l.m[:l.n] {
		if p.legal(m, check) {
			return true
		}
	}
	return false
}

// givesCheck reports whether the side to move is in check (after a move, the
// mover "gave check").
func (p *Position) givesCheck() bool { return p.InCheck() }
