package engine

import (
	"context"
	"slices"
	"time"

	"github.com/banmen/banmen/plugins/xiangqi/rules"
	"github.com/banmen/banmen/sdk"
)

var _ sdk.Analyser = Variant{}

// DefaultLimit is an analysis's limit when the request sets none: 600,000
// nodes, and never more than half a second, so that a 100-ply game takes
// under a minute.
var DefaultLimit = sdk.Limit{Nodes: 600_000, Time: 500 * time.Millisecond}

// analysisBits sizes an analysis's transposition table.
const analysisBits = 17

// Analyse evaluates the position for the side to move (sdk.Analyser) with
// the configured external engine, else the built-in search: its score for
// both seats, the best move and the principal variation. The built-in
// search runs as Hard's does, without contempt (an analysis judges, it
// does not avoid draws).
func (v Variant) Analyse(ctx context.Context, req sdk.AnalyseRequest) (sdk.Analysis, error) {
	g, err := rules.DecodeState(req.State)
	if err != nil {
		return sdk.Analysis{}, err
	}
	if g.Over() {
		return sdk.Analysis{}, sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	p := v.Player
	if p == nil {
		p = defaultPlayer
	}
	return p.Analyse(ctx, g, req.Limit)
}

// Analyse is the analysis of g, which must be on: the external engine's
// when one is configured (and answers), else the built-in search's.
func (p *Player) Analyse(ctx context.Context, g *rules.Game, l sdk.Limit) (sdk.Analysis, error) {
	start := time.Now()
	if p.ext != nil {
		// The external engine Hard plays with judges better when one is
		// configured; the built-in search stands in when it fails.
		if a, ok := p.ext.analyse(ctx, g, l, p.cfg.ExternalMoveTime); ok {
			return a, nil
		}
	}
	if l.IsZero() {
		l = DefaultLimit
	}
	var s *searcher
	select {
	case s = <-p.analysers:
	default:
		s = newSearcher(analysisBits)
	}
	defer func() {
		select {
		case p.analysers <- s:
		default:
		}
	}()
	pos := g.Position()
	hashes, checks := g.History()
	lim := Limits{Depth: l.Depth, Nodes: uint64(max(0, l.Nodes)), Deadline: l.Deadline(ctx, start), Ends: ends(g, 0)}
	s.reset(ctx, pos, hashes, checks, lim)
	res := s.search()
	if res.Move == rules.NoMove {
		return sdk.Analysis{}, sdk.Errorf(sdk.CodeNoMove, "no legal move")
	}
	line := res.PV
	if len(line) == 0 || line[0] != res.Move {
		line = []rules.Move{res.Move}
	}
	return twoSeats(g.Position(), scoreOf(res.Score), line, res.Depth, int64(res.Nodes)), nil
}

// twoSeats is the analysis of a line for the side to move: its score and
// the mirror for the other seat, the line (cut at a mate, and as far as it
// is legal), its first move the best.
func twoSeats(pos *rules.Position, sc sdk.Score, line []rules.Move, depth int, nodes int64) sdk.Analysis {
	side := pos.Side()
	if sc.Mate != 0 {
		line = line[:min(len(line), max(sc.Mate, -sc.Mate))]
	}
	sc.Seat = sdk.Seat(side)
	scores := []sdk.Score{sc, sc.Negate(sdk.Seat(1 - side))}
	if side == 1 {
		scores[0], scores[1] = scores[1], scores[0]
	}
	return sdk.Analysis{Scores: scores, Best: sdk.Move(rules.UCCI(line[0])), PV: legalLine(pos, line), Depth: depth, Nodes: nodes}
}

// scoreOf is a search score for the side to move as an sdk.Score: beyond
// mateBound, a mate at a known ply (mate-n given at ply n, -mate+n taken).
func scoreOf(v int32) sdk.Score {
	switch {
	case v > mateBound:
		return sdk.Score{Mate: int(mate - v)}
	case v < -mateBound:
		return sdk.Score{Mate: -int(mate + v)}
	}
	return sdk.Score{CP: int(v)}
}

// legalLine is the line's moves as UCCI text, as far as each is legal
// after the ones before it (a line pieced from the search's tables is
// checked, not trusted).
func legalLine(pos *rules.Position, line []rules.Move) []sdk.Move {
	q := *pos
	out := make([]sdk.Move, 0, len(line))
	for _, m := range line {
		if !slices.Contains(q.LegalMoves(), m) {
			break
		}
		out = append(out, sdk.Move(rules.UCCI(m)))
		q.MakeMove(m)
	}
	return out
}
