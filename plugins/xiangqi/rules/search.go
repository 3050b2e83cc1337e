package rules

import (
	"context"
	"hash/fnv"
	"time"

	"github.com/banmen/banmen/sdk"
)

// This is the small computer player that rules.Variant carries so that the
// rules package is a complete sdk.Variant on its own (for its conformance
// tests and tools). The plugin serves engine.Variant, whose Suggest replaces
// this one with a real engine. This one is an iterative
// deepening alpha-beta on material, with a capture-only quiescence search,
// to a depth set by the level. It is deterministic for a state and a level
// unless the deadline cuts an iteration short, in which case the best move of
// the last finished depth is played. It does not see repetition or the
// 60-move rule.

// levelDepth is the full-width depth of each level.
var levelDepth = map[sdk.Level]int{sdk.Easy: 1, sdk.Medium: 3, sdk.Hard: 5}

// defaultThink is the budget when ctx has no deadline.
const defaultThink = 3 * time.Second

// pieceValue is the material value of each kind, for the side that owns it.
var pieceValue = [8]int{King: 0, Advisor: 20, Elephant: 20, Horse: 40, Rook: 90, Cannon: 45, Pawn: 10}

const (
	mateScore = 100000
	infinity  = 1 << 30
)

// Suggest returns the computer's move for the side to move.
func (Variant) Suggest(ctx context.Context, s sdk.State, level sdk.Level) (sdk.Move, error) {
	g, err := decodeState(s)
	if err != nil {
		return "", err
	}
	depth, ok := levelDepth[level]
	if !ok {
		return "", sdk.Errorf(sdk.CodeBadOption, "xiangqi has no level %q", level)
	}
	if g.Over() {
		return "", sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(defaultThink)
	}
	// Leave time for the answer to travel back.
	deadline = deadline.Add(-time.Until(deadline) / 5)
	m := search(ctx, g.Position(), depth, deadline, level == sdk.Easy, g.rootEnds())
	if m == NoMove {
		return "", sdk.Errorf(sdk.CodeNoMove, "no legal move")
	}
	return sdk.Move(UCCI(m)), nil
}

type searcher struct {
	ctx      context.Context
	deadline time.Time
	nodes    int
	stopped  bool
	noise    uint32 // easy level: a per-position perturbation of the scores
}

// rootEnds scores the moves that end the game at once by the game's rules,
// repetition and the 60-move rule included, which the search does not see:
// a win is a mate, a draw is 0, a loss (perpetual check) is being mated.
func (g *Game) rootEnds() map[Move]int {
	ends := map[Move]int{}
	for _, m := range g.pos.LegalMoves() {
		switch r := g.After(m); {
		case r == nil:
		case r.Draw:
			ends[m] = 0
		case Color(r.Winners[0]) == g.pos.side:
			ends[m] = mateScore - 1
		default:
			ends[m] = -mateScore + 1
		}
	}
	return ends
}

// search returns the best move found within the depth and the deadline.
// ends holds the fixed scores of root moves that end the game.
func search(ctx context.Context, p *Position, depth int, deadline time.Time, noisy bool, ends map[Move]int) Move {
	root := p.LegalMoves()
	if len(root) == 0 {
		return NoMove
	}
	s := &searcher{ctx: ctx, deadline: deadline}
	if noisy {
		h := fnv.New32a()
		k := p.key()
		h.Write(k[:])
		s.noise = h.Sum32() | 1
	}
	orderMoves(p, root)
	best := root[0]
	for d := 1; d <= depth; d++ {
		alpha := -infinity
		var bestHere Move
		for i, m := range root {
			score, ok := ends[m]
			if !ok {
				u := p.make(m)
				score = -s.alphaBeta(p, d-1, 1, -infinity, -alpha)
				p.unmake(m, u)
			}
			if s.stopped {
				break
			}
			score += s.jitter(m)
			if score > alpha {
				alpha, bestHere = score, m
				copy(root[1:i+1], root[:i]) // keep the best first for the next depth
				root[0] = m
			}
		}
		if s.stopped {
			break
		}
		best = bestHere
	}
	return best
}

// jitter is the easy level's deterministic error, up to about a soldier.
func (s *searcher) jitter(m Move) int {
	if s.noise == 0 {
		return 0
	}
	x := s.noise * (uint32(m) | 1) * 2654435761
	return int(x>>27) - 16
}

func (s *searcher) checkTime() {
	if s.nodes++; s.nodes&1023 == 0 {
		if s.ctx.Err() != nil || time.Now().After(s.deadline) {
			s.stopped = true
		}
	}
}

func (s *searcher) alphaBeta(p *Position, depth, ply, alpha, beta int) int {
	if depth <= 0 {
		return s.quiesce(p, ply, alpha, beta, 0)
	}
	s.checkTime()
	if s.stopped {
		return 0
	}
	var l MoveList
	p.generate(&l)
	check := p.InCheck()
	moves := l.m[:l.n]
	orderMoves(p, moves)
	legal := 0
	for _, m := range moves {
		if !p.legal(m, check) {
			continue
		}
		legal++
		u := p.make(m)
		score := -s.alphaBeta(p, depth-1, ply+1, -beta, -alpha)
		p.unmake(m, u)
		if s.stopped {
			return 0
		}
		if score >= beta {
			return score
		}
		alpha = max(alpha, score)
	}
	if legal == 0 {
		return -mateScore + ply // no legal move loses, in check or not
	}
	return alpha
}

// quiesce searches captures only, so that the evaluation is not taken in
// the middle of an exchange.
func (s *searcher) quiesce(p *Position, ply, alpha, beta, qdepth int) int {
	s.checkTime()
	if s.stopped {
		return 0
	}
	check := p.InCheck()
	if qdepth >= 12 {
		return p.evaluate()
	}
	if !check {
		stand := p.evaluate()
		if stand >= beta || qdepth >= 8 {
			return stand
		}
		alpha = max(alpha, stand)
	}
	var l MoveList
	p.generate(&l)
	moves := l.m[:l.n]
	orderMoves(p, moves)
	legal := 0
	for _, m := range moves {
		capture := p.board[m.To()] != Empty
		if !check && !capture {
			continue
		}
		if !p.legal(m, check) {
			continue
		}
		legal++
		u := p.make(m)
		score := -s.quiesce(p, ply+1, -beta, -alpha, qdepth+1)
		p.unmake(m, u)
		if s.stopped {
			return 0
		}
		if score >= beta {
			return score
		}
		alpha = max(alpha, score)
	}
	if check && legal == 0 {
		return -mateScore + ply
	}
	return alpha
}

// evaluate is the material balance for the side to move, with a few
// positional touches: a soldier counts double once it has crossed the river
// (but less on the last rank, where it only moves sideways), and a horse
// gains by coming forward and loses on the edge files.
func (p *Position) evaluate() int {
	var score [2]int
	for c := Red; c <= Black; c++ {
		for i := uint8(0); i < p.n[c]; i++ {
			s := p.list[c][i&15]
			if s == NoSquare {
				continue
			}
			k := p.board[s].Kind()
			score[c] += pieceValue[k]
			ahead := s.Rank() // ranks from the own back rank
			if c == Black {
				ahead = 9 - ahead
			}
			switch k {
			case Pawn:
				if !ownHalf[c][s] {
					score[c] += pieceValue[Pawn]
				}
				if ahead == 9 {
					score[c] -= 8
				}
			case Horse:
				score[c] += min(ahead, 6)
				if f := s.File(); f == 0 || f == 8 {
					score[c] -= 4
				}
			}
		}
	}
	return score[p.side] - score[p.side^1]
}

// orderMoves puts captures first, most valuable victim first (a stable
// insertion sort: the lists are short and the order must be deterministic).
func orderMoves(p *Position, moves []Move) {
	score := func(m Move) int {
		if v := p.board[m.To()]; v != Empty {
			return 1000 + pieceValue[v.Kind()]*10 - pieceValue[p.board[m.From()].Kind()]
		}
		return 0
	}
	for i := 1; i < len(moves); i++ {
		m, sm := moves[i], score(moves[i])
		j := i
		for j > 0 && score(moves[j-1]) < sm {
			moves[j] = moves[j-1]
			j--
		}
		moves[j] = m
	}
}
