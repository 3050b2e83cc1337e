package rules

import (
	"context"
	"sort"
	"time"

	"github.com/banmen/banmen/sdk"
)

// The computer player for now: an alpha-beta search on material with a
// capture-only quiescence, deeper at higher levels. It is deterministic for a
// state and level (given the time to finish), and always answers before the
// deadline with the best move of the last finished depth. The plugin does
// not use it: it serves engine.Variant, whose Suggest is the real engine;
// this one stays for users of the bare rules (and their tests).

// pieceValue is material in centipawns by kind; pieces in hand are worth a
// little more, as they can go anywhere.
var pieceValue = [15]int{0, 100, 300, 400, 500, 800, 1000, 600, 0, 600, 600, 600, 600, 1100, 1300}

// advanceBonus is what one rank of advance is worth, by kind.
var advanceBonus = [15]int{0, 6, 2, 3, 4, 0, 0, 1, -12, 2, 2, 2, 2, 0, 0}

const (
	mateScore = 100000
	infScore  = 1 << 30
)

// levelDepth is the full-width depth of each level.
var levelDepth = map[sdk.Level]int{sdk.Easy: 1, sdk.Medium: 2, sdk.Hard: 3}

// Suggest returns the computer's move for the side to move.
func (Variant) Suggest(ctx context.Context, s sdk.State, level sdk.Level) (sdk.Move, error) {
	g, err := decodeState(s)
	if err != nil {
		return "", err
	}
	depth, ok := levelDepth[level]
	if !ok {
		return "", sdk.Errorf(sdk.CodeBadOption, "shogi has no level %q", sdk.Clip(string(level)))
	}
	if g.over() {
		return "", sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	if g.pos.canDeclare() {
		return DeclareMove, nil
	}
	p := g.pos
	moves := p.legalMoves(nil)
	if len(moves) == 0 {
		return "", sdk.Errorf(sdk.CodeNoMove, "no legal move")
	}
	// Keep a margin before the caller's deadline; without one, take at most
	// a few seconds.
	deadline := time.Now().Add(3 * time.Second)
	if d, ok := ctx.Deadline(); ok {
		margin := time.Until(d) / 5
		deadline = d.Add(-min(margin, 200*time.Millisecond))
	}
	sr := &searcher{ctx: ctx, deadline: deadline}
	orderMoves(&p, moves)
	best := moves[0]
	for d := 1; d <= depth; d++ {
		m, ok := sr.root(&p, moves, d)
		if !ok {
			break
		}
		best = m
		// Search the best move first at the next depth.
		for i, x := range moves {
			if x == m {
				copy(moves[1:i+1], moves[:i])
				moves[0] = m
				break
			}
		}
	}
	return sdk.Move(best.USI()), nil
}

type searcher struct {
	ctx      context.Context
	deadline time.Time
	nodes    int
	stopped  bool
}

func (sr *searcher) timeUp() bool {
	if sr.stopped {
		return true
	}
	sr.nodes++
	if sr.nodes&1023 == 0 && (time.Now().After(sr.deadline) || sr.ctx.Err() != nil) {
		sr.stopped = true
	}
	return sr.stopped
}

// root searches every root move to depth and returns the best, or false when
// time ran out before the depth was finished.
func (sr *searcher) root(p *Position, moves []Move, depth int) (Move, bool) {
	best, bestScore := moves[0], -infScore
	for _, m := range moves {
		cap := p.do(m)
		score := -sr.search(p, depth-1, -infScore, -bestScore, 1)
		p.undo(m, cap)
		if sr.stopped {
			return 0, false
		}
		if score > bestScore {
			best, bestScore = m, score
		}
	}
	return best, true
}

func (sr *searcher) search(p *Position, depth, alpha, beta, ply int) int {
	if sr.timeUp() {
		return 0
	}
	if depth <= 0 {
		return sr.quiesce(p, alpha, beta, ply, 4)
	}
	moves := p.legalMoves(make([]Move, 0, 128))
	if len(moves) == 0 {
		return -mateScore + ply
	}
	orderMoves(p, moves)
	for _, m := range moves {
		cap := p.do(m)
		score := -sr.search(p, depth-1, -beta, -alpha, ply+1)
		p.undo(m, cap)
		if sr.stopped {
			return 0
		}
		if score > alpha {
			alpha = score
			if alpha >= beta {
				break
			}
		}
	}
	return alpha
}

// quiesce looks at captures only, so that a search does not stop in the
// middle of an exchange.
func (sr *searcher) quiesce(p *Position, alpha, beta, ply, left int) int {
	if sr.timeUp() {
		return 0
	}
	var g genCtx
	moves := p.genBoard(make([]Move, 0, 128), &g)
	if g.checkers > 0 {
		moves = p.genDrops(moves, &g)
		if len(moves) == 0 {
			return -mateScore + ply
		}
	}
	stand := p.evaluate()
	if stand >= beta {
		return stand
	}
	alpha = max(alpha, stand)
	if left == 0 {
		return alpha
	}
	caps := moves[:0]
	for _, m := range moves {
		if !m.isDrop() && p.b[m.to()] != 0 {
			caps = append(caps, m)
		}
	}
	orderMoves(p, caps)
	for _, m := range caps {
		cap := p.do(m)
		score := -sr.quiesce(p, -beta, -alpha, ply+1, left-1)
		p.undo(m, cap)
		if sr.stopped {
			return 0
		}
		if score > alpha {
			alpha = score
			if alpha >= beta {
				break
			}
		}
	}
	return alpha
}

// evaluate is the material balance for the side to move.
func (p *Position) evaluate() int {
	var score [2]int
	for _, sq := range squares {
		pc := p.b[sq]
		if pc == 0 {
			continue
		}
		c, k := colorOf(pc), kindOf(pc)
		// A little shape: small pieces like to advance, the king likes
		// to stay home.
		adv := 8 - rowOf[sq] // ranks from the own back rank
		if c == gote {
			adv = rowOf[sq]
		}
		score[c] += pieceValue[k] + advanceBonus[k]*adv
	}
	for c := 0; c < 2; c++ {
		for k := pawn; k <= gold; k++ {
			score[c] += int(p.hand[c][k]) * pieceValue[k] * 11 / 10
		}
	}
	return score[p.side] - score[p.side^1]
}

// orderMoves puts the likely best moves first: big captures by small
// pieces, then promotions; the sort is stable so the order is deterministic.
func orderMoves(p *Position, moves []Move) {
	key := func(m Move) int {
		if m.isDrop() {
			return 0
		}
		s := 0
		if t := p.b[m.to()]; t != 0 {
			s += 10*pieceValue[kindOf(t)] - pieceValue[kindOf(p.b[m.from()])]/10 + 1000
		}
		if m.promotes() {
			s += 500
		}
		return s
	}
	sort.SliceStable(moves, func(i, j int) bool { return key(moves[i]) > key(moves[j]) })
}
