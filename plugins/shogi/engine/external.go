package engine

import (
	"context"
	"strings"
	"time"

	"github.com/banmen/banmen/plugins/shogi/rules"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/extengine"
)

// external is the optional outside engine of Hard. One process serves one
// search at a time, so a small pool serves concurrent games; a Suggest that
// finds every process busy uses the built-in search rather than wait.
type external struct {
	idle     chan *extengine.Engine
	moveTime time.Duration
}

// externalProcesses is how many engine processes may think at once.
const externalProcesses = 2

func newExternal(getenv func(string) string) *external {
	f := strings.Fields(getenv("BANMEN_SHOGI_ENGINE"))
	if len(f) == 0 {
		return nil
	}
	x := &external{idle: make(chan *extengine.Engine, externalProcesses), moveTime: time.Second}
	if d, err := time.ParseDuration(getenv("BANMEN_SHOGI_ENGINE_MOVETIME")); err == nil && d > 0 {
		x.moveTime = d
	}
	for i := 0; i < externalProcesses; i++ {
		// Processes start at their first search (and restart when they die).
		x.idle <- extengine.New(extengine.Config{Command: f[0], Args: f[1:], Protocol: extengine.USI})
	}
	return x
}

// suggest asks the engine for a move and checks it against the legal moves.
// ok is false on any failure: no idle process, a dead or late engine, or a
// move that is not legal here (resign included), so the caller searches
// itself; the engine is asked to finish well before stop for that reason.
func (x *external) suggest(ctx context.Context, line *rules.Line, stop time.Time) (sdk.Move, bool) {
	var e *extengine.Engine
	select {
	case e = <-x.idle:
	default:
		return "", false
	}
	defer func() { x.idle <- e }()
	// Keep a fifth of the time (at least 100 ms) for the fallback search.
	left := time.Until(stop)
	reserve := max(left/5, 100*time.Millisecond)
	mt := min(x.moveTime, left-reserve-50*time.Millisecond)
	if mt < 50*time.Millisecond {
		return "", false
	}
	ectx, cancel := context.WithDeadline(ctx, stop.Add(-reserve))
	defer cancel()
	text, err := e.BestMove(ectx, line.USI, extengine.Limit{MoveTime: mt})
	if err != nil {
		return "", false
	}
	if sdk.Move(text) == rules.DeclareMove {
		// Only a valid declaration; Suggest has already made it when it is.
		return "", false
	}
	m, err := rules.ParseUSI(text)
	if err != nil {
		return "", false
	}
	p := line.Pos
	for _, x := range p.GenerateMoves(make([]rules.Move, 0, 256)) {
		if x == m {
			return sdk.Move(m.USI()), true
		}
	}
	return "", false
}

func (x *external) close() {
	for i := 0; i < externalProcesses; i++ {
		e := <-x.idle
		e.Close()
		defer func() { x.idle <- e }()
	}
}
