// Package levels times a variant's computer levels for the bench commands
// (tools/shogibench, tools/xiangqibench, tools/yoninbench). Its figures
// measure the machine as much as the code: they are printed, never judged.
package levels

import (
	"context"
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/banmen/banmen/sdk"
)

// Player is a variant with a computer player.
type Player interface {
	sdk.Variant
	sdk.Suggester
}

// State is a position the levels are timed at, by name.
type State struct {
	Name  string
	State sdk.State
}

// Times prints how long each of v's levels thinks at every state, for the
// seat to move: with a deadline a minute away, where the level's own budget
// decides, and with a 200 ms deadline, which it must meet with room for the
// answer's trip back (the margin column). Wall clock and this process's CPU
// time.
func Times(out io.Writer, v Player, states []State) error {
	const short = 200 * time.Millisecond
	w := len("position")
	for _, s := range states {
		w = max(w, len(s.Name))
	}
	fmt.Fprintf(out, "\n%-7s %-*s %12s %12s   %s\n", "level", w, "position", "own budget", "cpu", "200 ms deadline: took, margin")
	for _, s := range states {
		for _, lv := range v.Describe().Levels {
			wall, cpu, err := timeSuggest(v, s.State, lv, time.Minute)
			if err != nil {
				return fmt.Errorf("%s at %s: %w", lv, s.Name, err)
			}
			took, _, err := timeSuggest(v, s.State, lv, short)
			if err != nil {
				return fmt.Errorf("%s at %s, 200 ms: %w", lv, s.Name, err)
			}
			fmt.Fprintf(out, "%-7s %-*s %12v %12v   %v, %v\n", lv, w, s.Name, wall.Round(time.Millisecond), cpu.Round(time.Millisecond),
				took.Round(time.Millisecond), (short - took).Round(time.Millisecond))
		}
	}
	return nil
}

// timeSuggest asks for the move of the seat to move with a deadline d away
// and returns the wall and CPU time it took.
func timeSuggest(v Player, st sdk.State, lv sdk.Level, d time.Duration) (wall, cpu time.Duration, err error) {
	view, err := v.View(st)
	if err != nil {
		return 0, 0, err
	}
	if len(view.ToMove) == 0 {
		return 0, 0, fmt.Errorf("no seat to move")
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	c0, t0 := processCPU(), time.Now()
	_, err = v.Suggest(ctx, st, view.ToMove[0], lv)
	return time.Since(t0), processCPU() - c0, err
}

// processCPU is the CPU time this process has used, user and system, every
// thread (the garbage collector's too).
func processCPU() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
