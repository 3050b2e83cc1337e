package rules

import (
	"math/rand/v2"
	"testing"

	"github.com/banmen/banmen/sdk"

	"github.com/banmen/banmen/sdk/sdktest"
)

// BenchmarkPlay is the cost of one move as a room pays it, early, in the
// middle and late in a game.
func BenchmarkPlay(b *testing.B) { sdktest.BenchmarkPlay(b, Variant{}, 10, 80, 160) }

// BenchmarkPlayGames is a room's average move as the load test makes it,
// without BenchmarkPlay's timer stops (which cost more than a move on a
// small machine): 64 rooms play random legal moves from the View's list,
// each game cut at ply 160 and started again.
func BenchmarkPlayGames(b *testing.B) {
	type room struct {
		st sdk.State
		v  sdk.View
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rooms := make([]room, 64)
	start := func(r *room) {
		var err error
		if r.st, r.v, err = (Variant{}).Start(nil); err != nil {
			b.Fatal(err)
		}
	}
	for i := range rooms {
		start(&rooms[i])
		// Spread the rooms over the game, as a load run's are.
		for range i * 160 / len(rooms) {
			l := rooms[i].v.Legal[rng.IntN(len(rooms[i].v.Legal))]
			st, v, err := Variant{}.Play(rooms[i].st, l.Seat, l.Move)
			if err != nil {
				b.Fatal(err)
			}
			rooms[i] = room{st, v}
			if v.Status != sdk.Playing {
				start(&rooms[i])
			}
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r := &rooms[i%len(rooms)]
		i++
		l := r.v.Legal[rng.IntN(len(r.v.Legal))]
		st, v, err := Variant{}.Play(r.st, l.Seat, l.Move)
		if err != nil {
			b.Fatal(err)
		}
		*r = room{st, v}
		if v.Status != sdk.Playing || v.Ply >= 160 {
			b.StopTimer()
			start(r)
			b.StartTimer()
		}
	}
}

// BenchmarkServedPlay is a Play as the plugin process serves it to the
// host over the lane, request bytes in and reply bytes out (the request's
// decoding, the packed View and the reply's encoding included), over 300
// rooms' games cut at ply 160 as the load command plays them: what the
// load command's shogi µs/move measures, without the socket.
func BenchmarkServedPlay(b *testing.B) { sdktest.BenchmarkServedPlay(b, Variant{}, 300, 160) }
