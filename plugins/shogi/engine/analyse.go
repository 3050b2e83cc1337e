package engine

import (
	"context"
	"sync"
	"time"

	"github.com/banmen/banmen/plugins/shogi/rules"
	"github.com/banmen/banmen/sdk"
)

var _ sdk.Analyser = (*Variant)(nil)

// DefaultLimit is an analysis's limit when the request sets none: 300,000
// nodes, and never more than half a second, so that a 100-ply game takes
// under a minute. Nodes rather than time, so that the same position gets
// the same answer on any machine that is not too busy.
var DefaultLimit = sdk.Limit{Nodes: 300_000, Time: 500 * time.Millisecond}

// analysisBits sizes an analysis's transposition table (4 MB).
const analysisBits = 18

var analysers = sync.Pool{New: func() any { return NewSearcher(analysisBits) }}

// Analyse evaluates the position for the seat to move (sdk.Analyser) with
// the external engine when one is configured (BANMEN_SHOGI_ENGINE), else
// or when it fails with the built-in search: its score for both seats, its best move and the
// line read back from the transposition table. A mate it reports is one the
// search proved, counted in the mating side's moves.
func (v *Variant) Analyse(ctx context.Context, req sdk.AnalyseRequest) (sdk.Analysis, error) {
	start := time.Now()
	line, err := rules.DecodeLine(req.State)
	if err != nil {
		return sdk.Analysis{}, err
	}
	if line.Over {
		return sdk.Analysis{}, sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	side := line.Pos.Side()
	if line.Pos.CanDeclare() {
		// Declaring wins at once: a win in one move, as a mate in one.
		return twoSeats(side, sdk.Score{Mate: 1}, rules.DeclareMove, nil, 0, 0), nil
	}
	if v.ext != nil {
		// The external engine Hard plays with judges better when one is
		// configured; the built-in search stands in when it fails.
		if a, ok := v.ext.analyse(ctx, line, req.Limit); ok {
			return a, nil
		}
	}
	lim := req.Limit
	if lim.IsZero() {
		lim = DefaultLimit
	}
	deadline := lim.Deadline(ctx, start)
	// A third of the budget looks for a mate made of checks first
	// (mate.go: a position with no check costs it nothing); the main
	// search has the rest, and the shorter of the mates the two prove
	// stands.
	ms := mateSearchers.Get().(*mateSearcher)
	defer mateSearchers.Put(ms)
	var mateStop time.Time
	if !deadline.IsZero() {
		mateStop = start.Add(deadline.Sub(start) / 3)
	}
	mateDepth := maxMateDepth
	if lim.Depth > 0 {
		mateDepth = min(mateDepth, lim.Depth)
	}
	ms.lineStop = deadline
	mateIn, mateLine := findMate(ctx, ms, line.Pos, mateDepth, lim.Nodes/3, mateStop)
	sr := analysers.Get().(*Searcher)
	defer analysers.Put(sr)
	nodes := lim.Nodes
	if nodes > 0 {
		nodes = max(1, nodes-ms.nodes)
	}
	res := sr.Search(ctx, line, Limits{Depth: lim.Depth, Nodes: nodes, Deadline: deadline, Full: true})
	if res.Move == 0 {
		return sdk.Analysis{}, sdk.Errorf(sdk.CodeNoMove, "no legal move")
	}
	sc := scoreOf(res.Score)
	if mateIn > 0 && len(mateLine) > 0 && (sc.Mate <= 0 || sc.Mate > mateIn) {
		pv := make([]sdk.Move, len(mateLine))
		for i, m := range mateLine {
			pv[i] = sdk.Move(m.USI())
		}
		return twoSeats(side, sdk.Score{Mate: mateIn}, pv[0], pv, max(res.Depth, mateIn), res.Nodes+ms.nodes), nil
	}
	pv := sr.pv(line.Pos, res.Move, res.Score)
	return twoSeats(side, sc, sdk.Move(res.Move.USI()), pv, res.Depth, res.Nodes+ms.nodes), nil
}

// maxMateDepth is the longest mate the mate search looks for, in plies.
const maxMateDepth = 31

var mateSearchers = sync.Pool{New: func() any { return newMateSearcher() }}

// scoreOf is a search score (for the side to move) as an sdk.Score: a
// score beyond mateBound is a mate at a known ply, mate-n for a mate the
// side to move gives at ply n, -mate+n for one it suffers.
func scoreOf(v int) sdk.Score {
	switch {
	case v > mateBound:
		return sdk.Score{Mate: mate - v}
	case v < -mateBound:
		return sdk.Score{Mate: -(mate + v)}
	}
	return sdk.Score{CP: v}
}

// twoSeats is an analysis with the side to move's score and its mirror.
func twoSeats(side int, sc sdk.Score, best sdk.Move, pv []sdk.Move, depth int, nodes int64) sdk.Analysis {
	sc.Seat = sdk.Seat(side)
	scores := []sdk.Score{sc, sc.Negate(sdk.Seat(1 - side))}
	if side == 1 {
		scores[0], scores[1] = scores[1], scores[0]
	}
	if pv == nil {
		pv = []sdk.Move{best}
	}
	return sdk.Analysis{Scores: scores, Best: best, PV: pv, Depth: depth, Nodes: int64(nodes)}
}

// maxPV bounds the line read back.
const maxPV = 24

// pv reads the principal variation back from the transposition table:
// first, then at each position the move stored for it, as long as it is
// legal there and no position repeats. A mate line stops at the mate; any
// other line where the table has lost the thread.
func (s *Searcher) pv(p rules.Position, first rules.Move, score int) []sdk.Move {
	out := []sdk.Move{sdk.Move(first.USI())}
	seen := map[uint64]bool{p.Hash(): true}
	p.DoMove(first)
	limit := maxPV
	if score > mateBound || score < -mateBound {
		limit = min(maxPV, mate-max(score, -score))
	}
	var buf []rules.Move
	for len(out) < limit && !seen[p.Hash()] {
		seen[p.Hash()] = true
		e := s.tt[p.Hash()&s.ttMask]
		if e.key != p.Hash() || e.move == 0 {
			break
		}
		buf = p.GenerateMoves(buf[:0])
		legal := false
		for _, m := range buf {
			if m == e.move {
				legal = true
				break
			}
		}
		if !legal {
			break
		}
		out = append(out, sdk.Move(e.move.USI()))
		p.DoMove(e.move)
	}
	return out
}
