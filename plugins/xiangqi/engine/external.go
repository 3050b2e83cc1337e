package engine

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/banmen/banmen/plugins/xiangqi/rules"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/extengine"
)

// externalEngines is how many external engine processes may think at once;
// a Hard request that finds them all busy is served by the built-in search
// rather than waiting.
const externalEngines = 2

// minExternalTime is the least time worth giving the external engine: with
// less, the built-in search plays.
const minExternalTime = 150 * time.Millisecond

// warmTimeout bounds an engine's start in the background. Starting takes
// tens of milliseconds on an idle machine but seconds on a busy one, which
// is why it never happens inside a player's request.
const warmTimeout = 30 * time.Second

// Backoff after a failure, so that a broken engine command costs nothing.
const (
	minBackoff = 5 * time.Second
	maxBackoff = 5 * time.Minute
)

// externalPool holds the external engines. An engine is in free only when
// it is started and idle; a new or failed one is (re)started in the
// background first, and requests meanwhile use the built-in search.
type externalPool struct {
	free  chan *extengine.Engine
	all   []*extengine.Engine
	calls atomic.Int64 // moves the external engine chose (for tests and logs)

	ctx    context.Context // ends at close, stopping warm-ups
	cancel context.CancelFunc
	warms  sync.WaitGroup

	mu      sync.Mutex
	retryAt time.Time
	backoff time.Duration
}

func newExternalPool(cfg Config) *externalPool {
	f := strings.Fields(cfg.External)
	x := &externalPool{free: make(chan *extengine.Engine, externalEngines)}
	x.ctx, x.cancel = context.WithCancel(context.Background())
	for range externalEngines {
		e := extengine.New(extengine.Config{Command: f[0], Args: f[1:], Protocol: extengine.UCCI})
		x.all = append(x.all, e)
		x.warm(e)
	}
	return x
}

// warm starts e (a one-ply search of the start position) in the background
// and then makes it free.
func (x *externalPool) warm(e *extengine.Engine) {
	x.warms.Add(1)
	go func() {
		defer x.warms.Done()
		ctx, cancel := context.WithTimeout(x.ctx, warmTimeout)
		_, err := e.BestMove(ctx, "fen "+rules.StartFEN, extengine.Limit{Depth: 1})
		cancel()
		x.note(err)
		x.free <- e
	}()
}

// note records the outcome of an engine call for the backoff.
func (x *externalPool) note(err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err == nil {
		x.backoff, x.retryAt = 0, time.Time{}
		return
	}
	x.backoff = min(max(2*x.backoff, minBackoff), maxBackoff)
	x.retryAt = time.Now().Add(x.backoff)
}

func (x *externalPool) backingOff() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return time.Now().Before(x.retryAt)
}

func (x *externalPool) close() {
	x.cancel()
	x.warms.Wait()
	for _, e := range x.all {
		e.Close()
	}
}

// bestMove asks a free external engine for its move, giving it at most
// moveTime and about two thirds of the time to the deadline, and keeping the
// rest for the built-in search should it fail. ok is false on any failure:
// no free engine, too little time, a recent failure, a protocol error, a
// late engine (extengine kills it; it restarts in the background), or a
// move that is not legal here.
func (x *externalPool) bestMove(ctx context.Context, g *rules.Game, deadline time.Time, moveTime time.Duration) (rules.Move, bool) {
	left := time.Until(deadline)
	if left < minExternalTime || x.backingOff() {
		return rules.NoMove, false
	}
	var e *extengine.Engine
	select {
	case e = <-x.free:
	default:
		return rules.NoMove, false
	}
	mt := min(moveTime, left*6/10)
	// The engine may overrun its movetime a little; the call ends halfway
	// between the movetime and the deadline.
	ectx, cancel := context.WithDeadline(ctx, time.Now().Add(mt+(left-mt)/2))
	text, err := e.BestMove(ectx, g.FENUCCI(), extengine.Limit{MoveTime: mt})
	cancel()
	if err != nil {
		if ctx.Err() == nil { // the caller giving up is not the engine's fault
			x.note(err)
		}
		x.warm(e) // it may have been killed: restart it off the request
		return rules.NoMove, false
	}
	x.free <- e
	m, err := g.Position().ParseLegalUCCI(text)
	if err != nil {
		return rules.NoMove, false
	}
	x.calls.Add(1)
	return m, true
}

// analyse asks a free external engine to judge g within lim (its time,
// else moveTime; depth and nodes as set), within ctx. ok is false on any
// failure, as for bestMove, and the caller searches itself. The engine's
// line is kept as far as each move is legal.
func (x *externalPool) analyse(ctx context.Context, g *rules.Game, lim sdk.Limit, moveTime time.Duration) (sdk.Analysis, bool) {
	if x.backingOff() {
		return sdk.Analysis{}, false
	}
	var e *extengine.Engine
	select {
	case e = <-x.free:
	default:
		return sdk.Analysis{}, false
	}
	el := extengine.Limit{Depth: lim.Depth, Nodes: lim.Nodes, MoveTime: lim.Time}
	if lim.IsZero() {
		el.MoveTime = moveTime
	}
	best, in, err := e.Analyse(ctx, g.FENUCCI(), el)
	if err != nil {
		if ctx.Err() == nil {
			x.note(err)
		}
		x.warm(e)
		return sdk.Analysis{}, false
	}
	x.free <- e
	m, err := g.Position().ParseLegalUCCI(best)
	if err != nil {
		return sdk.Analysis{}, false
	}
	line := []rules.Move{m}
	if len(in.PV) > 1 && in.PV[0] == best {
		q := *g.Position()
		q.MakeMove(m)
		for _, text := range in.PV[1:] {
			mv, err := q.ParseLegalUCCI(text)
			if err != nil {
				break
			}
			line = append(line, mv)
			q.MakeMove(mv)
		}
	}
	sc := sdk.Score{CP: in.CP}
	if in.Mate != 0 {
		sc = sdk.Score{Mate: extengine.MatePlies(extengine.UCCI, in.Mate)}
	}
	x.calls.Add(1)
	return twoSeats(g.Position(), sc, line, in.Depth, in.Nodes), true
}
