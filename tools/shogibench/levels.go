package main

import (
	"io"

	"github.com/banmen/banmen/plugins/shogi/engine"
	"github.com/banmen/banmen/plugins/shogi/rules"
	"github.com/banmen/banmen/tools/internal/levels"
)

// levelPositions are where the computer levels are timed: the start, and a
// middle game with many drops (the search's worst case).
var levelPositions = []struct{ name, usi string }{
	{"start", "startpos"},
	{"matsuri", "sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1"},
}

// levelTimes prints how long each computer level (the built-in engine, as
// the plugin serves it) thinks: Easy is meant to answer at once, Medium
// within a second, Hard within two. These were timed tests once.
func levelTimes(out io.Writer) error {
	v := engine.New(func(string) string { return "" })
	defer v.Close()
	var states []levels.State
	for _, p := range levelPositions {
		st, _, err := v.Import(rules.FormatSFENUSI, p.usi)
		if err != nil {
			return err
		}
		states = append(states, levels.State{Name: p.name, State: st})
	}
	return levels.Times(out, v, states)
}
