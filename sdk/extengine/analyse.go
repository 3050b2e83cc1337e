package extengine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Info is what an engine's "info" line says about its search.
type Info struct {
	Depth int
	Nodes int64
	// Score is for the side to move: CP centipawns, or a mate when Mate
	// is not 0, in the engine's own count (USI counts plies, UCI and
	// UCCI the mating side's moves: see MatePlies).
	Score bool // the line has a score
	CP    int
	Mate  int
	// Bound is set when the score is only a bound ("lowerbound",
	// "upperbound"): not a result to report.
	Bound bool
	// MultiPV is the line's rank (1 when the engine did not say).
	MultiPV int
	PV      []string
}

// maxInfoPV bounds the moves ParseInfo keeps.
const maxInfoPV = 128

// ParseInfo reads an "info" line of USI, UCI or UCCI. ok is false for a
// line that is not one, or that is malformed where it matters (a score, a
// depth or a node count that is not a number). "info string" lines are not
// search information. An unknown token is skipped, as the protocols ask.
func ParseInfo(line string) (in Info, ok bool) {
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != "info" {
		return Info{}, false
	}
	in.MultiPV = 1
	num := func(i int) (int64, bool) {
		if i >= len(f) {
			return 0, false
		}
		n, err := strconv.ParseInt(strings.TrimPrefix(f[i], "+"), 10, 64)
		return n, err == nil
	}
	for i := 1; i < len(f); i++ {
		switch f[i] {
		case "string":
			return Info{}, false
		case "depth":
			n, ok := num(i + 1)
			if !ok || n < 0 || n > 1<<20 {
				return Info{}, false
			}
			in.Depth, i = int(n), i+1
		case "nodes":
			n, ok := num(i + 1)
			if !ok || n < 0 {
				return Info{}, false
			}
			in.Nodes, i = n, i+1
		case "multipv":
			n, ok := num(i + 1)
			if !ok || n < 1 || n > 1<<10 {
				return Info{}, false
			}
			in.MultiPV, i = int(n), i+1
		case "score":
			if i+2 >= len(f) {
				return Info{}, false
			}
			kind, val := f[i+1], f[i+2]
			switch kind {
			case "cp":
				n, ok := num(i + 2)
				if !ok || n < -1<<20 || n > 1<<20 {
					return Info{}, false
				}
				in.CP = int(n)
			case "mate":
				// USI allows "mate +" and "mate -": a mate of
				// unknown length, which is reported as the
				// longest the engine could mean.
				switch val {
				case "+":
					in.Mate = maxInfoPV
				case "-":
					in.Mate = -maxInfoPV
				default:
					n, ok := num(i + 2)
					if !ok || n < -1<<10 || n > 1<<10 {
						return Info{}, false
					}
					in.Mate = int(n)
				}
				if in.Mate == 0 {
					// "mate 0": the side to move is mated now.
					in.Mate = -1 << 11
				}
			default:
				return Info{}, false
			}
			in.Score = true
			i += 2
			for i+1 < len(f) && (f[i+1] == "lowerbound" || f[i+1] == "upperbound") {
				in.Bound = true
				i++
			}
		case "pv":
			for _, m := range f[i+1:] {
				if len(in.PV) == maxInfoPV {
					break
				}
				in.PV = append(in.PV, m)
			}
			return in, true
		}
	}
	return in, true
}

// MatePlies is the engine's mate count as plies from the position (the
// contract's, sdk.Score.Mate): USI's are plies already; UCI's and UCCI's
// count the mating side's moves, so n moves given are 2n-1 plies and n
// taken 2n. A "mate 0" (mated now) is 0.
func MatePlies(p Protocol, mate int) int {
	switch {
	case mate <= -1<<11:
		return 0
	case p == USI:
		return mate
	case mate > 0:
		return 2*mate - 1
	}
	return 2 * mate
}

// Analyse searches position (as for BestMove) within lim and returns the
// engine's best move and what its last complete info line said (the
// principal line, multipv 1, not a bound). A search with no info line
// with a score answers ErrNoScore with the move.
func (e *Engine) Analyse(ctx context.Context, position string, lim Limit) (best string, in Info, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for attempt := 0; ; attempt++ {
		best, in, err = e.analyse(ctx, position, lim)
		if err == nil || errors.Is(err, ErrNoMove) || errors.Is(err, ErrNoScore) || ctx.Err() != nil || attempt == 1 {
			return best, in, err
		}
		e.kill()
	}
}

// ErrNoScore says the engine gave a move but no score for it.
var ErrNoScore = errors.New("engine gave no score")

func (e *Engine) analyse(ctx context.Context, position string, lim Limit) (string, Info, error) {
	if err := e.ready(ctx, position); err != nil {
		return "", Info{}, err
	}
	if err := e.send("position "+position, goCommand(lim)); err != nil {
		return "", Info{}, err
	}
	var last Info
	for {
		line, err := e.next(ctx)
		if err != nil {
			return "", Info{}, err
		}
		if in, ok := ParseInfo(line); ok {
			if in.Score && !in.Bound && in.MultiPV == 1 {
				last = in
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "bestmove"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 || f[0] == "resign" || f[0] == "(none)" || f[0] == "0000" || f[0] == "win" && e.cfg.Protocol != USI {
				return "", last, ErrNoMove
			}
			if !last.Score {
				return f[0], last, ErrNoScore
			}
			return f[0], last, nil
		}
	}
}

// goCommand is the "go" line of a limit: depth, nodes and movetime as
// set, "depth 1" when none is.
func goCommand(lim Limit) string {
	g := "go"
	if lim.Depth > 0 {
		g += fmt.Sprintf(" depth %d", lim.Depth)
	}
	if lim.Nodes > 0 {
		g += fmt.Sprintf(" nodes %d", lim.Nodes)
	}
	if lim.MoveTime > 0 {
		g += fmt.Sprintf(" movetime %d", lim.MoveTime.Milliseconds())
	}
	if g == "go" {
		g += " depth 1"
	}
	return g
}
