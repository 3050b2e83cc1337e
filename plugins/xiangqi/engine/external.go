package engine

import (
	"context"
	"strings"
	"time"

	"github.com/banmen/banmen/plugins/xiangqi/rules"
	"github.com/banmen/banmen/sdk/extengine"
)

// externalEngines is how many external engine processes may think at once;
// a Hard request that finds them all busy is served by the built-in search
// rather than waiting.
const externalEngines = 2

// minExternalTime is the least time worth giving the external engine: with
// less, the built-in search plays.
const minExternalTime = 150 * time.Millisecond

// externalPool holds the external engines, each used by one search at a time.
type externalPool struct {
	free chan *extengine.Engine
	all  []*extengine.Engine
}

func newExternalPool(cfg Config) *externalPool {
	f := strings.Fields(cfg.External)
	x := &externalPool{free: make(chan *extengine.Engine, externalEngines)}
	for range externalEngines {
		e := extengine.New(extengine.Config{Command: f[0], Args: f[1:], Protocol: extengine.UCCI})
		x.all = append(x.all, e)
		x.free <- e
	}
	return x
}

func (x *externalPool) close() {
	for _, e := range x.all {
		e.Close()
	}
}

// bestMove asks a free external engine for its move, giving it at most
// moveTime and about two thirds of the time to the deadline, and keeping the
// rest for the built-in search should it fail. ok is false on any failure:
// no free engine, too little time, a start or protocol error, a late engine
// (extengine kills it and starts a new one next time), or a move that is not
// legal here.
func (x *externalPool) bestMove(ctx context.Context, g *rules.Game, deadline time.Time, moveTime time.Duration) (rules.Move, bool) {
	left := time.Until(deadline)
	if left < minExternalTime {
		return rules.NoMove, false
	}
	var e *extengine.Engine
	select {
	case e = <-x.free:
	default:
		return rules.NoMove, false
	}
	defer func() { x.free <- e }()
	mt := min(moveTime, left*6/10)
	// The engine may overrun its movetime a little; the call ends halfway
	// between the movetime and the deadline.
	ectx, cancel := context.WithDeadline(ctx, time.Now().Add(mt+(left-mt)/2))
	defer cancel()
	text, err := e.BestMove(ectx, g.FENUCCI(), extengine.Limit{MoveTime: mt})
	if err != nil {
		return rules.NoMove, false
	}
	m, err := g.Position().ParseLegalUCCI(text)
	if err != nil {
		return rules.NoMove, false
	}
	return m, true
}
