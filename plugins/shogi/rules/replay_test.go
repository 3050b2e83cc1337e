package rules

import (
	"math/rand/v2"

	"github.com/banmen/banmen/sdk"
	"testing"
)

// BenchmarkDecodeLong measures the replay of a 200-ply State, which every
// Play, View and Suggest pays.
func BenchmarkDecodeLong(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	g := newGame(func() Position { p, _ := ParseSFEN(StartSFEN); return p }())
	for g.ply() < 200 && !g.over() {
		legal := g.pos.legalMoves(nil)
		m := legal[r.IntN(len(legal))]
		if err := g.play(g.pos.side, sdk.Move(m.USI())); err != nil {
			b.Fatal(err)
		}
	}
	s := g.encode()
	b.Logf("plies %d", g.ply())
	for b.Loop() {
		if _, err := replayState(s); err != nil {
			b.Fatal(err)
		}
	}
}
