package rules

import (
	"unsafe"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/statecache"
)

// games holds the games this process produced or decoded lately, keyed by
// their exact State bytes (statecache.Cache), so that a room's next move does
// not replay the whole game: a hit costs the same at ply 160 as at ply 10.
// A State that misses (forged, from another process, evicted) is replayed
// and checked in full by replayState. The budget bounds the memory: a game
// of 160 plies is estimated at some 60 KB, so it holds the latest state of
// about two thousand such games.
var games = statecache.New[*game](128 << 20)

// decodeState returns the game of s. The game may be shared with other
// calls: read it, or fork it before playing on.
func decodeState(s sdk.State) (*game, error) {
	if g, ok := games.Get(s); ok {
		return g, nil
	}
	g, err := replayState(s)
	if err != nil {
		return nil, err
	}
	games.Put(s, g, g.cost())
	return g, nil
}

// remember caches g, which must not change any more, under its State and
// returns that State.
func (g *game) remember() sdk.State {
	s := g.encode()
	games.Put(s, g, g.cost())
	return s
}

// fork returns a game equal to g that may be played on without changing g.
// The first fork of a game shares its slices and appends in place (g reads
// only up to its own lengths, so it never sees the new elements); any later
// fork gets full slice expressions, so that its appends copy. A room plays
// each State once, so a move copies nothing.
func (g *game) fork() *game {
	f := &game{startSFEN: g.startSFEN, startNum: g.startNum, pos: g.pos, result: g.result, records: g.records, hist: g.hist, moves: g.moves, history: g.history, keys: g.keys, prev: g.prev, lastAt: g.lastAt, legal: g.legal, last: g.last, hasLast: g.hasLast}
	if !g.forked.CompareAndSwap(false, true) {
		f.records = f.records[:len(f.records):len(f.records)]
		f.hist = f.hist[:len(f.hist):len(f.hist)]
		f.moves = f.moves[:len(f.moves):len(f.moves)]
		f.history = f.history[:len(f.history):len(f.history)]
		f.keys = f.keys[:len(f.keys):len(f.keys)]
		f.prev = f.prev[:len(f.prev):len(f.prev)]
		// lastAt belongs to the first fork's line of play: this one
		// makes its own from keys at its first move.
		f.lastAt = nil
	}
	return f
}

// cost estimates the bytes a cached game holds.
func (g *game) cost() int {
	const perRecord = int(unsafe.Sizeof(record{})) + int(unsafe.Sizeof(sdk.PlayedMove{})) + 48 // and its texts
	return int(unsafe.Sizeof(game{})) + len(g.records)*perRecord +
		len(g.history)*int(unsafe.Sizeof(Position{})) + len(g.keys)*(8+4+24) + cap(g.moves) +
		(cap(g.legal)+cap(g.spare))*int(unsafe.Sizeof(Move(0)))
}
