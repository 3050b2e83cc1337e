package main

import (
	"io"

	"github.com/banmen/banmen/plugins/xiangqi/engine"
	"github.com/banmen/banmen/plugins/xiangqi/rules"
	"github.com/banmen/banmen/tools/internal/levels"
)

// levelPositions are where the computer levels are timed: an opening and a
// busy middle game.
var levelPositions = []struct{ name, ucci string }{
	{"opening", "startpos moves h2e2 h9g7 h0g2 i9h9 i0h0 b9c7"},
	{"middlegame", "fen r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1"},
}

// levelTimes prints how long each computer level (the built-in engine, as
// the plugin serves it) thinks: Easy is meant to answer at once, Medium
// within about half a second, Hard within two. These were timed tests once.
func levelTimes(out io.Writer) error {
	v := engine.Variant{Player: engine.NewPlayer(engine.Config{})}
	defer v.Player.Close()
	var states []levels.State
	for _, p := range levelPositions {
		st, _, err := v.Import(rules.NotationFENUCCI, p.ucci)
		if err != nil {
			return err
		}
		states = append(states, levels.State{Name: p.name, State: st})
	}
	return levels.Times(out, v, states)
}
