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

// analyse asks the engine to judge the position within lim (its time, else
// the configured move time; depth and nodes as set) and checks its line
// against the rules, keeping the moves up to the first that is not legal.
// ok is false on any failure, and the caller searches itself.
func (x *external) analyse(ctx context.Context, line *rules.Line, lim sdk.Limit) (sdk.Analysis, bool) {
	var e *extengine.Engine
	select {
	case e = <-x.idle:
	default:
		return sdk.Analysis{}, false
	}
	defer func() { x.idle <- e }()
	el := extengine.Limit{Depth: lim.Depth, Nodes: lim.Nodes, MoveTime: lim.Time}
	if lim.IsZero() {
		el.MoveTime = x.moveTime
	}
	best, in, err := e.Analyse(ctx, line.USI, el)
	if err != nil || sdk.Move(best) == rules.DeclareMove {
		return sdk.Analysis{}, false
	}
	pv := legalUSI(line.Pos, append([]string{best}, in.PV[min(1, len(in.PV)):]...))
	if len(in.PV) > 0 && in.PV[0] != best {
		pv = legalUSI(line.Pos, []string{best})
	}
	if len(pv) == 0 {
		return sdk.Analysis{}, false
	}
	sc := sdk.Score{CP: in.CP}
	if in.Mate != 0 {
		sc = sdk.Score{Mate: extengine.MatePlies(extengine.USI, in.Mate)}
	}
	return twoSeats(line.Pos.Side(), sc, pv[0], pv, in.Depth, in.Nodes), true
}

// legalUSI is the moves as far as each is legal after the ones before it.
func legalUSI(p rules.Position, moves []string) []sdk.Move {
	var out []sdk.Move
	var buf []rules.Move
	for _, text := range moves {
		m, err := rules.ParseUSI(text)
		if err != nil {
			break
		}
		buf = p.GenerateMoves(buf[:0])
		legal := false
		for _, x := range buf {
			if x == m {
				legal = true
				break
			}
		}
		if !legal {
			break
		}
		out = append(out, sdk.Move(m.USI()))
		p.DoMove(m)
	}
	return out
}
