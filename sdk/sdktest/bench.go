package sdktest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

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
// the state, at that point of a seeded game of v (GameAt), as a room makes
// them: the state was returned by the Play just before, and is played on
// once ("Play"). "Replay" gives the same state again and again, as a retry
// does. It reports the state's bytes and the process's CPU time per call
// (cpu-µs/op, the garbage collector's included; on a shared machine the
// time per op also counts waiting for a core) beside the time.
func BenchmarkPlay(b *testing.B, v sdk.Variant, plies ...int) {
	for _, ply := range plies {
		prev, view, err := GameAt(v, 1, ply-1)
		if err != nil {
			b.Fatal(err)
		}
		last, ok := NextMove(v, prev, view, 1)
		if !ok {
			b.Fatalf("no move goes on at ply %d", ply-1)
		}
		s, view, err := v.Play(prev, last.Seat, last.Move)
		if err != nil {
			b.Fatal(err)
		}
		m, ok := NextMove(v, s, view, 1)
		if !ok {
			b.Fatalf("no move goes on at ply %d", ply)
		}
		b.Run(fmt.Sprintf("Play/ply=%d", ply), func(b *testing.B) {
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				// A new Play that returns s, as the last move of a room
				// does: what a variant made of it is fresh again.
				if _, _, err := v.Play(prev, last.Seat, last.Move); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				c := processCPU()
				if _, _, err := v.Play(s, m.Seat, m.Move); err != nil {
					b.Fatal(err)
				}
				cpu += processCPU() - c
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
			b.ReportMetric(float64(len(s)), "state-bytes")
		})
		b.Run(fmt.Sprintf("Replay/ply=%d", ply), func(b *testing.B) {
			b.ReportAllocs()
			c := processCPU()
			for b.Loop() {
				if _, _, err := v.Play(s, m.Seat, m.Move); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU()-c).Microseconds())/float64(b.N), "cpu-µs/op")
		})
		b.Run(fmt.Sprintf("View/ply=%d", ply), func(b *testing.B) {
			b.ReportAllocs()
			c := processCPU()
			for b.Loop() {
				if _, err := v.View(s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((processCPU()-c).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

// CheckCache is for a variant that caches games between calls
// (sdk/statecache): it plays seeded games of up to plies moves and checks
// that every Play and View answers exactly as the variant does with its
// cache off. cold runs f with the cache off (the variant's test sets its
// cache to nil and back; CheckCache calls v from one goroutine only).
//
// At every ply it also branches: another listed move is played from the same
// state, before the main line's move on even plies and after it on odd ones,
// and the main line's move is played twice, so that every way of playing on
// from a shared cached game is compared with a fresh replay.
func CheckCache(t *testing.T, v sdk.Variant, cold func(f func()), games, plies int) {
	t.Helper()
	for game := range games {
		s, view, err := v.Start(nil)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(game), 0xcac4e))
		for view.Status == sdk.Playing && view.Ply < plies {
			main := view.Legal[r.IntN(len(view.Legal))]
			branch := view.Legal[r.IntN(len(view.Legal))]
			order := []sdk.LegalMove{branch, main, main}
			if view.Ply%2 == 1 {
				order = []sdk.LegalMove{main, branch, main}
			}
			type answer struct {
				s    sdk.State
				v    sdk.View
				err  error
				view sdk.View
			}
			play := func(m sdk.LegalMove) answer {
				var a answer
				a.s, a.v, a.err = v.Play(s, m.Seat, m.Move)
				if a.err == nil {
					a.view, a.err = v.View(a.s)
				}
				return a
			}
			var warm, fresh []answer
			for _, m := range order {
				warm = append(warm, play(m))
			}
			cold(func() {
				for _, m := range order {
					fresh = append(fresh, play(m))
				}
			})
			for i := range order {
				w, f := warm[i], fresh[i]
				where := fmt.Sprintf("game %d ply %d, %s", game, view.Ply, order[i].Move)
				switch {
				case (w.err == nil) != (f.err == nil):
					t.Fatalf("%s: error %v with the cache, %v without", where, w.err, f.err)
				case w.err != nil:
					continue
				case !bytes.Equal(w.s, f.s):
					t.Fatalf("%s: the cache changes the state", where)
				case !reflect.DeepEqual(w.v, f.v):
					t.Fatalf("%s: the cache changes Play's view:\n%+v\nwant\n%+v", where, w.v, f.v)
				case !reflect.DeepEqual(w.view, f.view):
					t.Fatalf("%s: the cache changes View:\n%+v\nwant\n%+v", where, w.view, f.view)
				}
				// The other plays from the same game must not have changed
				// this one's cached game.
				if again, err := v.View(w.s); err != nil || !reflect.DeepEqual(again, f.view) {
					t.Fatalf("%s: View changed after the other moves from the same state (%v):\n%+v\nwant\n%+v", where, err, again, f.view)
				}
			}
			m := warm[len(warm)-1]
			if m.err != nil {
				t.Fatalf("game %d ply %d: listed move %s: %v", game, view.Ply, main.Move, m.err)
			}
			s, view = m.s, m.v
		}
	}
}
