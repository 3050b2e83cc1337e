package sdktest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// GameAt plays a seeded game of v (default options) for ply moves and
// returns its state and view there. It picks among the listed moves at
// random but never one that ends the game, so that long games are
// reachable; the same seed gives the same game. It fails when the game
// cannot be kept going that long.
func GameAt(v sdk.Variant, seed uint64, ply int) (sdk.State, sdk.View, error) {
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

// NextMove is a listed move of view that does not end the game, chosen by
// seed; ok is false when every listed move ends it.
func NextMove(v sdk.Variant, s sdk.State, view sdk.View, seed uint64) (m sdk.LegalMove, ok bool) {
	r := rand.New(rand.NewPCG(seed, uint64(view.Ply)))
	for _, i := range r.Perm(len(view.Legal)) {
		if _, nv, err := v.Play(s, view.Legal[i].Seat, view.Legal[i].Move); err == nil && nv.Status == sdk.Playing {
			return view.Legal[i], true
		}
	}
	return sdk.LegalMove{}, false
}

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

// BenchmarkPlay measures, for each ply, Play of one more move and View of
// the same state, at that point of a seeded game of v (GameAt). The same
// state is given on every iteration, as a room gives the state the last
// Play returned. It reports the bytes of the state and the History's
// entries beside the time.
func BenchmarkPlay(b *testing.B, v sdk.Variant, plies ...int) {
	for _, ply := range plies {
		s, view, err := GameAt(v, 1, ply)
		if err != nil {
			b.Fatal(err)
		}
		m, ok := NextMove(v, s, view, 1)
		if !ok {
			b.Fatalf("no move goes on at ply %d", ply)
		}
		b.Run(fmt.Sprintf("Play/ply=%d", ply), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := v.Play(s, m.Seat, m.Move); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(s)), "state-bytes")
		})
		b.Run(fmt.Sprintf("View/ply=%d", ply), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.View(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
