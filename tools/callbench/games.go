package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/banmen/banmen/sdk"
)

// gameAt plays a game of v from the start to ply, each move chosen by seed
// among the listed moves that do not end the game (declarations left out),
// and returns its state and view there. The same seed gives the same game.
func gameAt(v sdk.Variant, seed uint64, ply int) (sdk.State, sdk.View, error) {
	s, view, err := v.Start(nil)
	if err != nil {
		return nil, sdk.View{}, err
	}
	r := rand.New(rand.NewPCG(seed, 0xbe4c))
	for view.Ply < ply {
		next, nv, ok := playOn(v, s, view, r)
		if !ok {
			return nil, sdk.View{}, fmt.Errorf("the game ended at ply %d, before %d", view.Ply, ply)
		}
		s, view = next, nv
	}
	return s, view, nil
}

// playOn plays the first move, in r's order, that leaves the game going.
func playOn(v sdk.Variant, s sdk.State, view sdk.View, r *rand.Rand) (sdk.State, sdk.View, bool) {
	for _, i := range r.Perm(len(view.Legal)) {
		m := view.Legal[i]
		if m.Kind == sdk.Action {
			continue // a declaration ends the game or changes little
		}
		if next, nv, err := v.Play(s, m.Seat, m.Move); err == nil && nv.Status == sdk.Playing {
			return next, nv, true
		}
	}
	return nil, sdk.View{}, false
}

// nextMove is a listed move of view that does not end the game, chosen by
// seed; ok is false when every listed move ends it.
func nextMove(v sdk.Variant, s sdk.State, view sdk.View, seed uint64) (m sdk.LegalMove, ok bool) {
	r := rand.New(rand.NewPCG(seed, uint64(view.Ply)))
	for _, i := range r.Perm(len(view.Legal)) {
		if _, nv, err := v.Play(s, view.Legal[i].Seat, view.Legal[i].Move); err == nil && nv.Status == sdk.Playing {
			return view.Legal[i], true
		}
	}
	return sdk.LegalMove{}, false
}
