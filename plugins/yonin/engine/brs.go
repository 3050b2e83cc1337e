package engine

import "github.com/banmen/banmen/plugins/yonin/rules"

// Best-reply search (Schadd and Winands, 2011) for Hard: the root seat's
// layers alternate with a single "opponents" layer, in which the one reply
// worst for the root among all the live opponents' moves is played, each
// opponent moving as if it were its turn (rules.Position.SetTurn). So the
// root sees two or three of its own moves within the horizon — what a mate,
// the game's first ranking key, needs — and assumes one enemy answer per
// move instead of a coalition of three.
//
// Check priority still rules: when a seat is in check, the layer is that
// seat's moves only (the root's, or one opponent's), exactly as package rules
// chose it. An opponent's forced answer to the root's check is followed by
// the root's next move only when that opponent sits just before the root;
// otherwise the seats between still have their turn, and the opponents'
// layer (one best reply) comes first (config.strict: without it, Hard
// believed in mates the others would have stopped, and scored 63% against
// Medium instead of 82%). So a sequence of checks is a mate search that
// knows who else moves. Every move is played by rules.Position.Play, so
// mates, credits and hand-overs stay the rules'.

// brsMove is a move of one seat in a best-reply layer, with its order key.
type brsMove struct {
	m    rules.Move
	seat int8
	key  int32
}

// brsKey tells the table a root layer from an opponents' layer of the same
// position.
const brsKey = 0x6A09E667F3BCC909

// whose says which layer is to play in p, where rootNext says whose layer
// comes when no seat is in check: forced when check priority has chosen the
// seat to move, and maximise when the layer is the root's.
func (s *searcher) whose(p *rules.Position, rootNext bool) (maximise, forced bool) {
	if anyCheck(p) {
		return p.Turn() == s.ev.root, true
	}
	return rootNext, false
}

// layer lists the moves of the layer to play in p (see whose), ordered best
// first, in the ply's buffer: the seat's to move when forced, else the
// root's when maximise, else every live opponent's.
func (s *searcher) layer(p *rules.Position, ply int, maximise, forced, capturesOnly bool, tt rules.Move, ttSeat int8) []brsMove {
	out := s.bbuf[ply][:0]
	add := func(seat int) {
		q := *p
		if !q.SetTurn(seat) {
			return
		}
		var ms []rules.Move
		if capturesOnly {
			ms = q.LegalCaptures(s.buf[ply][:0])
		} else {
			ms = q.LegalMoves(s.buf[ply][:0])
		}
		s.buf[ply] = ms
		for _, m := range ms {
			isTT := m == tt && tt != 0 && int8(seat) == ttSeat
			out = append(out, brsMove{m: m, seat: int8(seat), key: s.orderKey(p, m, ply, isTT, &s.bhistory[seat])})
		}
	}
	switch {
	case forced:
		add(p.Turn())
	case maximise:
		add(s.ev.root)
	default:
		for o := range 4 {
			if o != s.ev.root && p.Live(o) {
				add(o)
			}
		}
	}
	// Insertion sort, stable: captures and the table move come first.
	for i := 1; i < len(out); i++ {
		e := out[i]
		j := i
		for ; j > 0 && out[j-1].key < e.key; j-- {
			out[j] = out[j-1]
		}
		out[j] = e
	}
	s.bbuf[ply] = out
	return out
}

// brs is the best-reply value of p for the root seat. rootNext says whose
// layer comes when no seat is in check: the root's after an opponent moved,
// the opponents' after the root moved.
func (s *searcher) brs(p *rules.Position, depth, ply, ext int, alpha, beta int, rootNext bool) int {
	if s.poll() {
		return 0
	}
	if v, over := s.over(p, ply); over {
		return v
	}
	if depth <= 0 || ply >= maxPly-1 {
		return s.bquiesce(p, ply, s.quiesce, alpha, beta, rootNext)
	}
	key := p.Hash()
	maximise, forced := s.whose(p, rootNext)
	if maximise {
		key ^= brsKey
	}
	e, hit, cut, v := s.probe(key, depth, alpha, beta)
	if cut {
		return v
	}
	var ttMove rules.Move
	var ttSeat int8 = -1
	if hit {
		ttMove, ttSeat = e.move, e.seat
	}
	moves := s.layer(p, ply, maximise, forced, false, ttMove, ttSeat)
	if len(moves) == 0 {
		if maximise {
			// The root cannot move: on its turn it is mated.
			return matedScore + 15000*p.Mates() + ply
		}
		return s.ev.evaluate(p)
	}
	a0, b0 := alpha, beta
	best := -inf
	if !maximise {
		best = inf
	}
	var bestMove rules.Move
	var bestSeat int8 = -1
	for i, bm := range moves {
		q := *p
		q.SetTurn(int(bm.seat))
		m := bm.m
		quiet := !m.Promotes() && (m.IsDrop() || p.At(m.To()) == 0)
		q.Play(m)
		checks := anyCheck(&q)
		d, e := depth-1, ext
		// The root's checks, and the others' checks on the root, are
		// where mates come from: they are searched a ply deeper.
		if checks && e > 0 && (maximise || q.InCheck(s.ev.root)) {
			d, e = depth, e-1
		}
		next := s.nextLayer(p, int(bm.seat), rootNext)
		var v int
		if quiet && i >= 6 && depth >= 3 && !checks {
			v = s.brs(&q, d-1, ply+1, e, alpha, beta, next)
			if maximise && v > alpha || !maximise && v < beta {
				v = s.brs(&q, d, ply+1, e, alpha, beta, next)
			}
		} else {
			v = s.brs(&q, d, ply+1, e, alpha, beta, next)
		}
		if s.aborted {
			return 0
		}
		if maximise {
			if v > best {
				best, bestMove, bestSeat = v, m, bm.seat
			}
			alpha = max(alpha, v)
		} else {
			if v < best {
				best, bestMove, bestSeat = v, m, bm.seat
			}
			beta = min(beta, v)
		}
		if alpha >= beta {
			if quiet {
				s.killers[ply][1] = s.killers[ply][0]
				s.killers[ply][0] = m
				s.bhistory[bm.seat][m.From()][m.To()] += int32(depth * depth)
			}
			break
		}
	}
	e.store(key, depth, best, a0, b0, bestMove, bestSeat)
	return best
}

// bquiesce resolves the captures that hang over a best-reply leaf: the
// layer to move may stand pat or capture.
func (s *searcher) bquiesce(p *rules.Position, ply, left, alpha, beta int, rootNext bool) int {
	stand := s.ev.evaluate(p)
	if left <= 0 || ply >= maxPly-1 {
		return stand
	}
	maximise, forced := s.whose(p, rootNext)
	if maximise {
		if stand >= beta {
			return stand
		}
		alpha = max(alpha, stand)
	} else {
		if stand <= alpha {
			return stand
		}
		beta = min(beta, stand)
	}
	moves := s.layer(p, ply, maximise, forced, true, 0, -1)
	best := stand
	for _, bm := range moves {
		if s.poll() {
			return 0
		}
		q := *p
		q.SetTurn(int(bm.seat))
		q.Play(bm.m)
		v, over := s.over(&q, ply)
		if !over {
			v = s.bquiesce(&q, ply+1, left-1, alpha, beta, s.nextLayer(p, int(bm.seat), rootNext))
		}
		if s.aborted {
			return 0
		}
		if maximise {
			best = max(best, v)
			alpha = max(alpha, v)
		} else {
			best = min(best, v)
			beta = min(beta, v)
		}
		if alpha >= beta {
			break
		}
	}
	return best
}

// nextLayer says whether the root's layer follows seat's move in p, played
// in a layer that rootNext described. After the root's move come the
// opponents; after an opponent's free reply, the root. An opponent's forced
// answer to the root's check is not yet the opponents' turn between the
// root's moves, unless seat sits just before the root: the seats between
// still move, and one best reply stands for them.
func (s *searcher) nextLayer(p *rules.Position, seat int, rootNext bool) bool {
	if seat == s.ev.root {
		return false
	}
	if rootNext || !s.cfg.strict || !anyCheck(p) {
		return true
	}
	for i := 1; i < 4; i++ {
		if t := (seat + i) & 3; p.Live(t) {
			return t == s.ev.root
		}
	}
	return true
}
