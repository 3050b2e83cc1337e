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
// move and then each seat's move in turn as the same search finds it for
// that seat (continuation): the best-reply search's own tables hold no game
// line, as they let any opponent answer, not the seat in its turn. Deeper mates are
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
			line, used := s.continuation(q, pvPlies, cfg.nodes-s.nodes, stop)
			a.PV = append(a.PV, line...)
			a.Nodes += used
			return a, nil
		}
	}
	// Three quarters of the budget for the move, the rest for the line
	// after it.
	mainStop, mainNodes := stop, cfg.nodes
	if lim.Nodes > 0 {
		mainNodes = max(1, cfg.nodes*3/4)
	}
	if !lim.Deadline(ctx, start).IsZero() {
		mainStop = start.Add(stop.Sub(start) * 3 / 4)
	}
	s.cfg.nodes, s.stop = mainNodes, mainStop
	best, bestV, depth := s.best(&p, root)
	q := p
	q.Play(best)
	a := s.standings(&q, seat, depth, best)
	if depth > 0 {
		a.Scores[seat].CP = bestV
	}
	line, used := s.continuation(q, pvPlies, cfg.nodes-s.nodes, stop)
	a.PV = append(a.PV, line...)
	a.Nodes += used
	return a, nil
}

// pvPlies is how many moves follow the best one in the line: the rest of
// the round and the next, two moves of each seat.
const pvPlies = 7

// best is the best-reply search's move for the seat to move in p among
// root (reordered), with its score and the depth of the last iteration
// completed (0: none, the first move by the move order).
func (s *searcher) best(p *rules.Position, root []rules.Move) (rules.Move, int, int) {
	s.orderMoves(p, root, 0, 0)
	best, bestV, depth := root[0], 0, 0
	for d := 1; d <= s.cfg.depth; d++ {
		v, i := -inf, -1
		alpha := -inf
		for j, m := range root {
			q := *p
			q.Play(m)
			sc := s.brs(&q, d-1, 1, s.cfg.extend, alpha, inf, false)
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
		if d > 1 && s.ctx.Err() != nil {
			break
		}
	}
	return best, bestV, depth
}

// continuation is the line after the best move, in the seats' turn: each
// seat to move plays what the same best-reply search, from its own side,
// finds within an equal share of the nodes and time left (a mate at once
// first, as Hard plays it). It ends with the game, or when the budget
// does.
func (s *searcher) continuation(p rules.Position, plies int, nodes int64, stop time.Time) (out []sdk.Move, used int64) {
	for i := range plies {
		seat := p.Turn()
		if seat < 0 || s.ctx.Err() != nil || !time.Now().Before(stop) {
			break
		}
		root := p.LegalMoves(nil)
		if len(root) == 0 {
			break
		}
		share := nodes / int64(plies-i)
		if share < 200 {
			break
		}
		until := time.Now().Add(time.Until(stop) / time.Duration(plies-i))
		var m rules.Move
		for _, c := range root {
			q := p
			q.Play(c)
			if q.Score(seat) > p.Score(seat) {
				m = c
				break
			}
		}
		if m == 0 {
			s.reset(seat, p, share, until)
			m, _, _ = s.best(&p, root)
			nodes -= s.nodes
			used += s.nodes
		}
		out = append(out, rules.MoveText(seat, m))
		p.Play(m)
	}
	return out, used
}

// reset readies the searcher for a new search by seat from p, within
// nodes and until stop.
func (s *searcher) reset(seat int, p rules.Position, nodes int64, stop time.Time) {
	s.ev.root = seat
	s.cfg.nodes, s.stop = nodes, stop
	s.nodes, s.aborted = 0, false
	clear(s.tt)
	s.killers = [maxPly][2]rules.Move{}
	s.history = [rules.NumKinds + 81][81]int32{}
	s.bhistory = [4][rules.NumKinds + 81][81]int32{}
	s.rootPos, s.rootHash = p, p.Hash()
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
