package engine

import (
	"context"
	"time"

	"github.com/banmen/banmen/plugins/yonin/rules"
	"github.com/banmen/banmen/sdk"
)

var _ sdk.Analyser = Variant{}

// DefaultLimit is an analysis's limit when the request sets none: 300,000
// nodes, and never more than half a second, so that a 100-ply game takes
// under a minute.
var DefaultLimit = sdk.Limit{Nodes: 300_000, Time: 500 * time.Millisecond}

// Analyse judges the position for all four seats (sdk.Analyser). The seat
// to move's best move comes from Hard's best-reply search within the
// limit, or is a mate it can make at once, which it reports as mate 1 (and
// mate -1 for the seat it mates). Each seat's standing is the evaluation
// the engine plays by, from that seat's side, of the position after the
// best move (the seat to move's is its search score). The line is the best
// move alone: the best-reply search lets any opponent answer, not the
// seats in their turn, so its tables hold no game line. Deeper mates are
// scores, not counted plies: among four players no seat can force a mate
// in n against every combination of the others.
func (Variant) Analyse(ctx context.Context, req sdk.AnalyseRequest) (sdk.Analysis, error) {
	start := time.Now()
	g, err := rules.DecodeState(req.State)
	if err != nil {
		return sdk.Analysis{}, err
	}
	if g.Over() {
		return sdk.Analysis{}, sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	p := g.Position()
	seat := p.Turn()
	root := g.LegalMoves()
	if len(root) == 0 {
		return sdk.Analysis{}, sdk.Errorf(sdk.CodeNoMove, "no legal move")
	}
	lim := req.Limit
	if lim.IsZero() {
		lim = DefaultLimit
	}
	cfg := levels[sdk.Hard]
	cfg.noise = 0
	cfg.nodes = lim.Nodes
	if cfg.nodes <= 0 {
		cfg.nodes = 1 << 62
	}
	if lim.Depth > 0 {
		cfg.depth = min(lim.Depth, maxPly/2)
	}
	stop := lim.Deadline(ctx, start)
	if stop.IsZero() {
		stop = start.Add(time.Hour) // bounded by nodes or depth instead
	}
	s := &searcher{
		ev:       evaluator{root: seat, pairs: p.Pairs(), safety: cfg.safety, press: cfg.press},
		cfg:      cfg,
		ctx:      ctx,
		stop:     stop,
		tt:       make([]ttEntry, 1<<ttBits),
		quiesce:  cfg.quiesce,
		rootPos:  p,
		rootHash: p.Hash(),
	}
	// A mate now: reported as mate 1 by the seat to move, -1 for the mated.
	for _, m := range root {
		q := p
		q.Play(m)
		if q.Score(seat) > p.Score(seat) {
			mated, _ := q.Mated(q.Mates() - 1)
			a := s.standings(&q, seat, 0, m)
			a.Scores[seat] = sdk.Score{Seat: sdk.Seat(seat), Mate: 1}
			if mated >= 0 && mated < 4 && mated != seat {
				a.Scores[mated] = sdk.Score{Seat: sdk.Seat(mated), Mate: -1}
			}
			return a, nil
		}
	}
	s.orderMoves(&p, root, 0, 0)
	best, bestV, depth := root[0], 0, 0
	for d := 1; d <= cfg.depth; d++ {
		v, i := -inf, -1
		alpha := -inf
		for j, m := range root {
			q := p
			q.Play(m)
			sc := s.brs(&q, d-1, 1, cfg.extend, alpha, inf, false)
			if s.aborted {
				break
			}
			if sc > v {
				v, i, alpha = sc, j, sc
			}
		}
		if s.aborted || i < 0 {
			break
		}
		root[0], root[i] = root[i], root[0]
		best, bestV, depth = root[0], v, d
		if v >= firstPlace-1000 {
			break
		}
		if d > 1 && ctx.Err() != nil {
			break
		}
	}
	q := p
	q.Play(best)
	a := s.standings(&q, seat, depth, best)
	if depth > 0 {
		a.Scores[seat].CP = bestV
	}
	return a, nil
}

// standings is an analysis of the seat to move's move m, which led to q:
// every live seat's standing there by the engine's evaluation from its
// side (a mated seat's is far below any other).
func (s *searcher) standings(q *rules.Position, seat, depth int, m rules.Move) sdk.Analysis {
	a := sdk.Analysis{Best: rules.MoveText(seat, m), Depth: depth, Nodes: s.nodes}
	a.PV = []sdk.Move{a.Best}
	for t := range 4 {
		ev := s.ev
		ev.root = t
		var v int
		if q.Turn() < 0 {
			v = ev.terminal(q)
		} else {
			v = ev.evaluate(q)
		}
		a.Scores = append(a.Scores, sdk.Score{Seat: sdk.Seat(t), CP: v})
	}
	return a
}
