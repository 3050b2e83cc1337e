package main

import (
	"context"
	"io"

	"github.com/banmen/banmen/plugins/yonin/engine"
	"github.com/banmen/banmen/plugins/yonin/rules"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/tools/internal/levels"
)

// levelStates are where the computer levels are timed: the start, and the
// middle game Easy reaches against itself in 40 plies (the engine tests'
// midgame).
func levelStates(v engine.Variant) ([]levels.State, error) {
	start, _, err := v.Start(nil)
	if err != nil {
		return nil, err
	}
	g, err := rules.NewGame(nil)
	if err != nil {
		return nil, err
	}
	for range 40 {
		m, err := v.Suggest(context.Background(), g.State(), g.ToMove(), sdk.Easy)
		if err != nil {
			return nil, err
		}
		if err := g.Play(g.ToMove(), m); err != nil {
			return nil, err
		}
		if g.ToMove() == sdk.NoSeat {
			break
		}
	}
	return []levels.State{{Name: "start", State: start}, {Name: "midgame", State: g.State()}}, nil
}

// levelTimes prints how long each computer level (the built-in engine, as
// the plugin serves it) thinks: Easy is meant to answer at once, Medium
// within a second, Hard within two. These were timed tests once.
func levelTimes(out io.Writer) error {
	v := engine.Variant{}
	states, err := levelStates(v)
	if err != nil {
		return err
	}
	return levels.Times(out, v, states)
}
