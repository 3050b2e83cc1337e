package main

import (
	"context"
	"fmt"
	"io"
	"syscall"
	"time"

	"github.com/banmen/banmen/plugins/xiangqi/engine"
	"github.com/banmen/banmen/plugins/xiangqi/rules"
	"github.com/banmen/banmen/sdk"
)

// levelPositions are where the computer levels are timed: an opening and a
// busy middle game.
var levelPositions = []struct{ name, ucci string }{
	{"opening", "startpos moves h2e2 h9g7 h0g2 i9h9 i0h0 b9c7"},
	{"middlegame", "fen r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1"},
}

// levelTimes prints how long each computer level (the built-in engine, as
// the plugin serves it) thinks: with a deadline a minute away, where the
// level's own budget decides (Easy is meant to answer at once, Medium
// within about half a second, Hard within two), and with a 200 ms deadline, which it
// must meet with room for the answer's trip back (the margin column). These
// were timed tests once; they measure the machine as much as the code, so
// they are figures here, wall clock and this process's CPU time.
func levelTimes(out io.Writer) error {
	v := engine.Variant{Player: engine.NewPlayer(engine.Config{})}
	defer v.Player.Close()
	fmt.Fprintf(out, "\n%-7s %-10s %12s %12s   %s\n", "level", "position", "own budget", "cpu", "200 ms deadline: took, margin")
	for _, p := range levelPositions {
		st, _, err := v.Import(rules.NotationFENUCCI, p.ucci)
		if err != nil {
			return err
		}
		for _, lv := range []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard} {
			wall, cpu, err := timeSuggest(v, st, lv, time.Minute)
			if err != nil {
				return fmt.Errorf("%s at %s: %w", lv, p.name, err)
			}
			short, _, err := timeSuggest(v, st, lv, 200*time.Millisecond)
			if err != nil {
				return fmt.Errorf("%s at %s, 200 ms: %w", lv, p.name, err)
			}
			fmt.Fprintf(out, "%-7s %-10s %12v %12v   %v, %v\n", lv, p.name, wall.Round(time.Millisecond), cpu.Round(time.Millisecond),
				short.Round(time.Millisecond), (200*time.Millisecond - short).Round(time.Millisecond))
		}
	}
	return nil
}

// timeSuggest asks for the move of the seat to move with a deadline d away
// and returns the wall and CPU time it took.
func timeSuggest(v interface {
	sdk.Variant
	sdk.Suggester
}, st sdk.State, lv sdk.Level, d time.Duration) (wall, cpu time.Duration, err error) {
	view, err := v.View(st)
	if err != nil {
		return 0, 0, err
	}
	if len(view.ToMove) == 0 {
		return 0, 0, fmt.Errorf("no seat to move")
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	c0, t0 := cpuTime(), time.Now()
	_, err = v.Suggest(ctx, st, view.ToMove[0], lv)
	return time.Since(t0), cpuTime() - c0, err
}

// cpuTime is this process's CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
