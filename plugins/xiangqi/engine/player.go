package engine

import (
	"context"
	"time"

	"github.com/banmen/banmen/plugins/xiangqi/rules"
	"github.com/banmen/banmen/sdk"
)

// level is how one strength searches.
type level struct {
	depth            int
	nodes, softNodes uint64
	think            time.Duration // the most it ever thinks
	ttBits           uint
	contempt         int32
	plain            bool // a full-width search (see Limits.Plain)
	// Easy only: the chance out of 16 of a shallower look, and the margin
	// within which a worse move may be chosen.
	blindChance int
	margin      int32
}

// levels are the strengths. Easy looks two plies (one, now and then) and
// picks among the near-best moves; Medium looks five plies, full width, so
// that it sees every mate in three but little beyond; Hard searches
// as deep as a node budget allows, which takes about a second and a half on
// one core of a modest machine, under a two-second cap. Node budgets rather
// than time keep every level's move the same for the same state.
var levels = map[sdk.Level]level{
	sdk.Easy:   {depth: 2, nodes: 200_000, think: 300 * time.Millisecond, ttBits: 12, blindChance: 4, margin: 60},
	sdk.Medium: {depth: 5, nodes: 1_000_000, think: 500 * time.Millisecond, ttBits: 15, plain: true},
	sdk.Hard:   {nodes: 3_000_000, softNodes: 1_000_000, think: 1800 * time.Millisecond, ttBits: 19, contempt: 20},
}

// Player chooses moves. It is safe for concurrent use: every search gets its
// own working memory from a pool.
type Player struct {
	cfg Config
	// idle keeps a few searchers of each level for reuse: a Hard table is
	// 16 MB, too much to allocate per move or to leave to sync.Pool, which
	// drops everything at each garbage collection.
	idle map[sdk.Level]chan *searcher
	// analysers keeps a few analysis searchers (Analyse) for reuse.
	analysers chan *searcher
	ext       *externalPool
}

// idleSearchers is how many searchers of a level are kept between moves.
const idleSearchers = 2

// NewPlayer returns a player; cfg may name an external engine for Hard.
func NewPlayer(cfg Config) *Player {
	p := &Player{cfg: cfg, idle: map[sdk.Level]chan *searcher{}, analysers: make(chan *searcher, idleSearchers)}
	for name := range levels {
		p.idle[name] = make(chan *searcher, idleSearchers)
	}
	if cfg.External != "" {
		p.ext = newExternalPool(cfg)
	}
	return p
}

// Close stops any external engine processes.
func (p *Player) Close() {
	if p.ext != nil {
		p.ext.close()
	}
}

// reserve is the part of the time to a deadline kept for the answer's trip
// back to the host.
func reserve(left time.Duration) time.Duration { return left/5 + 10*time.Millisecond }

// Choose returns the move for the side to move in g at the given level,
// before ctx's deadline. The game must be on.
func (p *Player) Choose(ctx context.Context, g *rules.Game, name sdk.Level) (rules.Move, error) {
	lv, ok := levels[name]
	if !ok {
		return rules.NoMove, sdk.Errorf(sdk.CodeBadOption, "xiangqi has no level %q", sdk.Clip(string(name)))
	}
	start := time.Now()
	deadline := start.Add(lv.think)
	if d, ok := ctx.Deadline(); ok {
		if d = d.Add(-reserve(time.Until(d))); d.Before(deadline) {
			deadline = d
		}
	}
	if name == sdk.Hard && p.ext != nil {
		if m, ok := p.ext.bestMove(ctx, g, deadline, p.cfg.ExternalMoveTime); ok {
			return m, nil
		}
	}
	pos := g.Position()
	hashes, checks := g.History()
	// An iteration takes about as long as all before it: one started after
	// half the time would not finish.
	var soft time.Time
	if lv.depth == 0 { // depth-limited levels finish their depth if they can
		soft = time.Now().Add(time.Until(deadline) / 2)
	}
	lim := Limits{Depth: lv.depth, Nodes: lv.nodes, SoftNodes: lv.softNodes, Deadline: deadline, SoftDeadline: soft,
		Contempt: lv.contempt, Plain: lv.plain, Ends: ends(g, lv.contempt)}
	var s *searcher
	select {
	case s = <-p.idle[name]:
	default:
		s = newSearcher(lv.ttBits)
	}
	defer func() {
		select {
		case p.idle[name] <- s:
		default:
		}
	}()
	if lv.margin > 0 {
		return s.chooseEasy(ctx, pos, hashes, checks, lim, lv, seed(pos.Hash(), g.Moves())), nil
	}
	s.reset(ctx, pos, hashes, checks, lim)
	res := s.search()
	if res.Move == rules.NoMove {
		return rules.NoMove, sdk.Errorf(sdk.CodeNoMove, "no legal move")
	}
	return res.Move, nil
}

// ends scores, for the side to move, the legal moves that end the game at
// once by its rules, which the search sees only approximately: a win is a
// mate, a draw minus the contempt, a perpetual-check loss a mate against.
func ends(g *rules.Game, contempt int32) map[rules.Move]int32 {
	pos := g.Position()
	out := map[rules.Move]int32{}
	for _, m := range pos.LegalMoves() {
		switch r := g.After(m); {
		case r == nil:
		case r.Draw:
			out[m] = -contempt
		case rules.Color(r.Winners[0]) == pos.Side():
			out[m] = mate - 1
		default:
			out[m] = -mate + 1
		}
	}
	return out
}

// seed derives Easy's randomness from the position and the move number, so
// that the same state always gets the same move (SplitMix64 finaliser).
func seed(hash uint64, ply int) uint64 {
	z := hash + uint64(ply)*0x9E3779B97F4A7C15
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// chooseEasy scores every root move with a full window at a shallow depth
// and picks, by the seed, among those within the margin of the best, the
// better ones more often. Now and then (blindChance in 16) it looks only one
// ply deep and misses a two-move tactic. It never picks a move scored as
// losing when the best is not, nor passes over a forced win.
func (s *searcher) chooseEasy(ctx context.Context, pos *rules.Position, hashes []uint64, checks []bool, lim Limits, lv level, rnd uint64) rules.Move {
	depth := lv.depth
	if int(rnd&15) < lv.blindChance {
		depth = 1
	}
	rnd >>= 4
	s.reset(ctx, pos, hashes, checks, lim)
	rms := s.rootMoves()
	if len(rms) == 0 {
		return rules.NoMove
	}
	s.finish, s.depth = true, depth // a shallow pass is quick; it must give a move
	best := -infinity
	for i := range rms {
		rm := &rms[i]
		if !rm.fixed {
			irr := s.irreversible(rm.m)
			u := s.pos.MakeMove(rm.m)
			s.push(s.pos.InCheck(), irr)
			rm.score = -s.negamax(depth-1, 1, -infinity, infinity, true)
			s.pop()
			s.pos.UnmakeMove(rm.m, u)
			if s.stopped {
				// Out of time (a storm of checks): choose among the
				// moves scored so far, captures first as listed.
				rms = rms[:max(i, 1)]
				break
			}
		}
		best = max(best, rm.score)
	}
	if best > mateBound {
		for _, rm := range rms {
			if rm.score == best {
				return rm.m
			}
		}
	}
	// Weight each candidate by how close it is to the best: the best move
	// weighs 4, one at the margin 1.
	var cands []rules.Move
	var weights []float64
	total := 0.0
	for _, rm := range rms {
		if rm.score >= best-lv.margin && rm.score > -mateBound {
			w := 1 + 3*float64(rm.score-(best-lv.margin))/float64(lv.margin)
			cands = append(cands, rm.m)
			weights = append(weights, w)
			total += w
		}
	}
	if len(cands) == 0 {
		return rms[0].m
	}
	x := float64(rnd%(1<<20)) / (1 << 20) * total
	for i, w := range weights {
		if x < w {
			return cands[i]
		}
		x -= w
	}
	return cands[len(cands)-1]
}
