package rules

import (
	"sync/atomic"
	"unsafe"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/statecache"
)

// games holds the games this process produced or decoded lately, keyed by
// their exact State bytes (statecache.Cache), so that a room's next move does
// not replay the whole game: a hit costs the same at ply 160 as at ply 10.
// A State that misses (forged, from another process, evicted) is replayed
// and checked in full by replayState. A game of 160 plies is estimated at
// some 8 KB.
var games = statecache.New[*cached](64 << 20)

// cached is a game in the cache: shared by every call that gets it, never
// changed.
type cached struct {
	g      *Game
	forked atomic.Bool // set by the first fork
}

// decodeState returns the game of s. The game may be shared with other
// calls: read it, or fork it before playing on.
func decodeState(s sdk.State) (*cached, error) {
	if c, ok := games.Get(s); ok {
		return c, nil
	}
	g, err := replayState(s)
	if err != nil {
		return nil, err
	}
	c := &cached{g: g}
	games.Put(s, c, g.cost())
	return c, nil
}

// remember caches g, which must not change any more, under its State and
// returns that State.
func (g *Game) remember() sdk.State {
	s := g.encode()
	games.Put(s, &cached{g: g}, g.cost())
	return s
}

// fork returns a game equal to the cached one that may be played on
// without changing it. The first fork shares the slices and appends in
// place (the cached game reads only up to its own lengths, so it never sees
// the new elements); any later fork gets full slice expressions, so that
// its appends copy. A room plays each State once, so a move copies nothing.
func (c *cached) fork() *Game {
	f := *c.g
	if !c.forked.CompareAndSwap(false, true) {
		f.moves = f.moves[:len(f.moves):len(f.moves)]
		f.keys = f.keys[:len(f.keys):len(f.keys)]
		f.hashes = f.hashes[:len(f.hashes):len(f.hashes)]
		f.checks = f.checks[:len(f.checks):len(f.checks)]
		f.texts = f.texts[:len(f.texts):len(f.texts)]
		f.hanzi = f.hanzi[:len(f.hanzi):len(f.hanzi)]
		f.uccis = f.uccis[:len(f.uccis):len(f.uccis)]
		f.hist = f.hist[:len(f.hist):len(f.hist)]
	}
	return &f
}

// cost estimates the bytes a cached game holds.
func (g *Game) cost() int {
	perMove := int(unsafe.Sizeof(Move(0))+unsafe.Sizeof(key{})+unsafe.Sizeof(sdk.PlayedMove{})) + 8 + 1 + 3*16 + 8 + 8 + 20 // and its WXF, Chinese and UCCI texts
	return int(unsafe.Sizeof(Game{})+unsafe.Sizeof(cached{})) + len(g.moves)*perMove
}
