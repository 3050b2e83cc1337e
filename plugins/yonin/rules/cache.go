package rules

import (
	"sync/atomic"
	"unsafe"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/statecache"
)

// games holds the games this process produced or decoded lately, keyed by
// their exact State bytes (statecache.Cache), so that a room's next move does
// not replay the whole game. A State that misses (forged, from another
// process, evicted) is replayed and checked in full by replayState. A game
// of 160 plies is estimated at some 40 KB.
var games = statecache.New[*cached](128 << 20)

// cached is a game in the cache: shared by every call that gets it, never
// changed.
type cached struct {
	g      *game
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
func (g *game) remember() sdk.State {
	g.legalMoves, g.haveLegal = g.legal(), true
	s := g.encodeState()
	games.Put(s, &cached{g: g}, g.cost())
	return s
}

// fork returns a game equal to the cached one that may be played on
// without changing it. The first fork shares the slices and appends in
// place (the cached game reads only up to its own lengths, so it never sees
// the new elements), and takes over the repetition counts: the cached game
// lists its legal moves from legalMoves and never reads them again, so a
// room's move costs the same early or late in a long game. Any later fork
// gets full slice expressions, so that its appends copy, and counts of its
// own, counted again from the keys (the first fork may be changing the
// map).
func (c *cached) fork() *game {
	f := *c.g
	f.haveLegal, f.legalMoves = false, nil
	if !c.forked.CompareAndSwap(false, true) {
		f.moves = f.moves[:len(f.moves):len(f.moves)]
		f.movers = f.movers[:len(f.movers):len(f.movers)]
		f.checks = f.checks[:len(f.checks):len(f.checks)]
		f.keys = f.keys[:len(f.keys):len(f.keys)]
		f.history = f.history[:len(f.history):len(f.history)]
		f.counts = make(map[string]int, len(f.keys))
		for _, k := range f.keys {
			f.counts[k]++
		}
	}
	return &f
}

// cost estimates the bytes a cached game holds.
func (g *game) cost() int {
	keyLen := 0
	if len(g.keys) > 0 {
		keyLen = len(g.keys[0])
	}
	perMove := int(unsafe.Sizeof(move(0))+unsafe.Sizeof(sdk.PlayedMove{})) + 1 + 1 + 16 + keyLen + 48 + 24 // key, counts entry, texts
	return int(unsafe.Sizeof(game{})+unsafe.Sizeof(cached{})) + len(g.keys)*perMove
}
