package main

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
)

// thinkTimes collects how long each player took per move, as the match
// saw it (through the plugin process, the call's overhead included). These
// are the levels' budgets in real play, printed as figures: the tests no
// longer time the levels, since that measures the machine.
type thinkTimes struct {
	mu sync.Mutex
	by map[string][]time.Duration
}

// times is the match's one collection (games run in parallel workers).
var times = &thinkTimes{by: map[string][]time.Duration{}}

func (tt *thinkTimes) add(player string, d time.Duration) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.by[player] = append(tt.by[player], d)
}

// print writes one line per player: moves, median, 90th percentile and
// longest time, and how many moves came after the deadline.
func (tt *thinkTimes) print(w io.Writer, deadline time.Duration) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	names := make([]string, 0, len(tt.by))
	for n := range tt.by {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ds := slices.Clone(tt.by[n])
		slices.Sort(ds)
		late := 0
		for _, d := range ds {
			if d > deadline {
				late++
			}
		}
		ms := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
		fmt.Fprintf(w, "think time %s: %d moves, median %v, p90 %v, max %v; %d after the %v deadline\n",
			n, len(ds), ms(ds[len(ds)/2]), ms(ds[len(ds)*9/10]), ms(ds[len(ds)-1]), late, deadline)
	}
}
