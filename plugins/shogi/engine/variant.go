package engine

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/banmen/banmen/plugins/shogi/rules"
	"github.com/banmen/banmen/sdk"
)

// Variant is shogi with this engine as its computer player: the rules'
// methods, and Suggest from here.
type Variant struct {
	rules.Variant
	ext *external // nil without BANMEN_SHOGI_ENGINE
}

// The capabilities the plugin serves, checked at compile time: a method
// whose signature drifted from the sdk's would otherwise silently stop
// being the capability (docs/plugins.md, "Capability guards").
var (
	_ sdk.Variant          = (*Variant)(nil)
	_ sdk.Suggester        = (*Variant)(nil)
	_ sdk.Rewinder         = (*Variant)(nil)
	_ sdk.Perfter          = (*Variant)(nil)
	_ sdk.Divider          = (*Variant)(nil)
	_ sdk.AnalysedExporter = (*Variant)(nil) // embedded from rules
	_ sdk.PlayersExporter  = (*Variant)(nil) // embedded from rules
)

// Levels are the computer strengths this engine plays, weakest first: the
// rules alone list none, as they have no computer player.
var Levels = []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard}

// Describe is the rules' description with this engine's levels.
func (v *Variant) Describe() sdk.Description {
	d := v.Variant.Describe()
	d.Levels = Levels
	return d
}

// New returns the variant. getenv is os.Getenv in the plugin (a map in
// tests): BANMEN_SHOGI_ENGINE names an external USI engine for Hard, and
// BANMEN_SHOGI_ENGINE_MOVETIME (a Go duration, default 1s) its thinking
// time.
func New(getenv func(string) string) *Variant {
	return &Variant{ext: newExternal(getenv)}
}

// Close stops the external engine, if one runs.
func (v *Variant) Close() {
	if v.ext != nil {
		v.ext.close()
	}
}

// level is how one level searches.
type level struct {
	depth int
	nodes int64
	// ttBits sizes the transposition table: a deep search needs a big one,
	// a shallow one would spend more time clearing it than searching.
	ttBits int
	// think caps the thinking time whatever the caller's deadline.
	think time.Duration
	// margin > 0 makes the level choose at random (seeded by the
	// position) among the moves within margin of the best.
	margin int
}

// The levels. Easy looks two plies and a quiescence ahead and picks among
// the moves within a pawn and a half of the best, so it plays sensible
// moves yet leaves chances; Medium searches up to four plies and a
// quiescence within 200,000 nodes (about a third of a second on an idle
// core; bounded by nodes, not time, so the same question gets the same
// answer on any machine); Hard searches as deep as two seconds allow.
var levels = map[sdk.Level]level{
	sdk.Easy:   {depth: 2, nodes: 60_000, ttBits: 14, think: 150 * time.Millisecond, margin: 150},
	sdk.Medium: {depth: 4, nodes: 200_000, ttBits: 17, think: time.Second},
	sdk.Hard:   {ttBits: 20, think: 2 * time.Second},
}

// searchers are reused, one pool per table size: Hard's table is 16 MB, too
// much to allocate per move.
var searchers = map[int]*sync.Pool{}

func init() {
	for _, l := range levels {
		bits := l.ttBits
		searchers[bits] = &sync.Pool{New: func() any { return NewSearcher(bits) }}
	}
}

// Suggest returns the computer's move for seat at level, always before ctx's
// deadline. Only the side to move has a move: any other seat is
// not_your_turn.
func (v *Variant) Suggest(ctx context.Context, s sdk.State, seat sdk.Seat, lv sdk.Level) (sdk.Move, error) {
	start := time.Now()
	line, err := rules.DecodeLine(s)
	if err != nil {
		return "", err
	}
	cfg, ok := levels[lv]
	if !ok {
		return "", sdk.Errorf(sdk.CodeBadOption, "shogi has no level %q", sdk.Clip(string(lv)))
	}
	if line.Over {
		return "", sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	if side := line.Pos.Side(); seat != sdk.Seat(side) {
		return "", sdk.Errorf(sdk.CodeNotYourTurn, "seat %d is not to move (seat %d is)", seat, side)
	}
	if line.Pos.CanDeclare() {
		return rules.DeclareMove, nil
	}
	stop := start.Add(cfg.think)
	if d, ok := ctx.Deadline(); ok {
		// Leave room to answer: a fifth of the time left, at most 150 ms.
		left := d.Sub(start)
		if d2 := d.Add(-min(left/5+10*time.Millisecond, 150*time.Millisecond)); d2.Before(stop) {
			stop = d2
		}
	}
	if lv == sdk.Hard && v.ext != nil && time.Until(stop) > 200*time.Millisecond {
		if m, ok := v.ext.suggest(ctx, line, stop); ok {
			return m, nil
		}
	}
	if time.Until(stop) < 5*time.Millisecond {
		// No time to search: the best move by a one-ply look.
		if m := QuickMove(line); m != 0 {
			return sdk.Move(m.USI()), nil
		}
		return "", sdk.Errorf(sdk.CodeNoMove, "no legal move")
	}
	lim := Limits{Depth: cfg.depth, Nodes: cfg.nodes, Deadline: stop, Margin: cfg.margin}
	if cfg.nodes == 0 {
		// An iteration takes a few times the one before: one begun after
		// 40% of the time would seldom finish. (Node-bounded levels go
		// on, so that their answer does not depend on the machine.)
		lim.SoftDeadline = start.Add(stop.Sub(start) * 2 / 5)
	}
	pool := searchers[cfg.ttBits]
	sr := pool.Get().(*Searcher)
	defer pool.Put(sr)
	res := sr.Search(ctx, line, lim)
	if res.Move == 0 {
		return "", sdk.Errorf(sdk.CodeNoMove, "no legal move")
	}
	m := res.Move
	if cfg.margin > 0 && len(res.Near) > 1 {
		// Seeded by the position and the ply: the same game asks, the same
		// move comes back.
		rng := rand.New(rand.NewPCG(line.Pos.Hash(), uint64(line.Ply)))
		m = res.Near[rng.IntN(len(res.Near))]
	}
	return sdk.Move(m.USI()), nil
}
