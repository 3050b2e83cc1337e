package engine

import "github.com/banmen/banmen/plugins/shogi/rules"

// Move ordering: the transposition-table move, then captures and
// promotions (most valuable victim, least valuable attacker), then the
// killers of this ply, then quiet moves and drops by their history. Alpha-beta
// prunes most when the best move comes first.
const (
	ttMoveScore  = 1 << 30
	captureScore = 1 << 26
	killerScore  = 1 << 25
	historyCap   = 1 << 14
)

// moverIndex is the history row of a move: the moving kind, or 16 plus the
// dropped kind, so that a drop and a board move to one cell are told apart.
func moverIndex(p *rules.Position, m rules.Move) int {
	if m.IsDrop() {
		return 16 + m.DropKind()
	}
	return p.At(m.From()).Kind()
}

// captureOrder ranks captures and promotions among themselves.
func captureOrder(p *rules.Position, m rules.Move) int {
	a := p.At(m.From()).Kind()
	v := -boardValue[a] / 16
	if t := p.At(m.To()); t != 0 {
		v += 16 * boardValue[t.Kind()]
	}
	if m.Promotes() {
		v += boardValue[a+rules.Promoted] - boardValue[a]
	}
	return v
}

func (s *Searcher) scoreMoves(p *rules.Position, moves []rules.Move, scores []int32, ttMove rules.Move, ply int) {
	k0, k1 := s.killers[ply][0], s.killers[ply][1]
	h := &s.history[p.Side()]
	for i, m := range moves {
		switch {
		case m == ttMove:
			scores[i] = ttMoveScore
		case !m.IsDrop() && (p.At(m.To()) != 0 || m.Promotes()):
			scores[i] = int32(captureScore + captureOrder(p, m))
		case m == k0:
			scores[i] = killerScore
		case m == k1:
			scores[i] = killerScore - 1
		default:
			scores[i] = h[moverIndex(p, m)][m.To()]
		}
	}
}

// pickNext brings the best-scored of moves[i:] to i. Selection beats a full
// sort: most nodes cut off after a move or two.
func pickNext(moves []rules.Move, scores []int32, i int) {
	b := i
	for j := i + 1; j < len(moves); j++ {
		if scores[j] > scores[b] {
			b = j
		}
	}
	moves[i], moves[b] = moves[b], moves[i]
	scores[i], scores[b] = scores[b], scores[i]
}

// rewardQuiet records a quiet move that cut off: a killer of its ply, and
// history credit, while the quiet moves tried before it lose some.
func (s *Searcher) rewardQuiet(side int, m rules.Move, depth, ply int, tried []rules.Move, p *rules.Position) {
	if s.killers[ply][0] != m {
		s.killers[ply][1] = s.killers[ply][0]
		s.killers[ply][0] = m
	}
	bonus := int32(min(depth*depth, 400))
	h := &s.history[side]
	update := func(x rules.Move, b int32) {
		e := &h[moverIndex(p, x)][x.To()]
		// Gravity keeps every entry within ±historyCap.
		*e += b - *e*abs32(b)/historyCap
	}
	update(m, bonus)
	for _, x := range tried {
		if x.IsDrop() || (p.At(x.To()) == 0 && !x.Promotes()) {
			update(x, -bonus)
		}
	}
}

func abs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}
