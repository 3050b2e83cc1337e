// Package statecache is an opt-in helper for a variant whose State is
// dear to decode: a bounded cache of the games the plugin produced lately,
// keyed by the exact State bytes, so that the next call on a State it
// returned skips decoding and replaying it.
//
// Use it when profiling shows decoding the State is a large part of a
// call, typically when a State carries a move list that is replayed and
// checked on every call (the built-in shogi, xiangqi and yonin plugins do).
// A variant whose State decodes in microseconds (tic-tac-toe, connect
// four) gains nothing and should not use it. It is not part of the game
// contract: the answers must be the same with and without it, which
// sdktest.CheckCache checks.
package statecache

import (
	"hash/maphash"
	"sync"

	"github.com/banmen/banmen/sdk"
)

// Cache keeps the games a plugin produced lately, keyed by the exact
// bytes of the State it returned with each, so that the next call on that
// State can skip decoding and replaying it. A room sends back the State the
// last Play returned, so with a cache a move costs the same at ply 160 as
// at ply 10.
//
// A hit needs the whole State to be equal, byte for byte, to one this
// process put (the entry keeps the full bytes and a hit compares them, not
// only their hash), so a forged or altered State can never reach a cached
// game: it misses, and the plugin decodes and validates it fully as
// before. The cache is only a cache: the State still carries the whole
// game, a miss (another process, a restart, an evicted entry) gives the
// same answers, only slower.
//
// Memory is bounded by a budget: each Put names the cost of its entry (an
// estimate of the game's bytes; the key's bytes are added), and the least
// recently used entries go when the total would exceed the budget. It is
// safe for concurrent use. A nil *Cache caches nothing.
//
// The values are shared by every caller that gets them: a plugin must
// never change a game it put or got, but copy what it changes (a game that
// only grows may share its slices' backing arrays with a copy that appends,
// as long as no two copies append to the same array).
type Cache[G any] struct {
	mu     sync.Mutex
	budget int
	cost   int
	// m finds the entries by a hash of their key, which is taken before
	// the lock and kept in the entry: a State is some kilobytes, which a
	// map keyed by the bytes hashed again under the lock for every lookup
	// and for every entry it evicted (a key long out of the processor's
	// caches by then). Two keys of one hash are never both held: the
	// later put replaces the other, which is only a cache miss.
	m    map[uint64]*cacheEntry[G]
	seed maphash.Seed
	ring cacheEntry[G] // sentinel: ring.next is the most recent entry
	// collide makes every key hash alike, for the tests of collisions.
	collide bool
}

type cacheEntry[G any] struct {
	key        string
	hash       uint64
	g          G
	cost       int
	prev, next *cacheEntry[G]
}

// New returns an empty cache holding at most budget bytes of estimated
// cost.
func New[G any](budget int) *Cache[G] {
	c := &Cache[G]{budget: budget, m: map[uint64]*cacheEntry[G]{}, seed: maphash.MakeSeed()}
	c.ring.prev, c.ring.next = &c.ring, &c.ring
	return c
}

// Get returns the game put with exactly the bytes s, and marks it used.
func (c *Cache[G]) Get(s sdk.State) (g G, ok bool) {
	if c == nil {
		return g, false
	}
	h := c.sum(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[h]
	if e == nil || e.key != string(s) {
		return g, false
	}
	c.unlink(e)
	c.pushFront(e)
	return e.g, true
}

// Put remembers g as the game of the State s, at the given estimated cost
// in bytes (len(s) is added). An entry dearer than the whole budget is not
// kept. s is copied.
func (c *Cache[G]) Put(s sdk.State, g G, cost int) {
	if c == nil {
		return
	}
	cost += len(s)
	if cost > c.budget {
		return
	}
	h := c.sum(s)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[h]; e != nil && e.key == string(s) {
		c.cost += cost - e.cost
		e.g, e.cost = g, cost
		c.unlink(e)
		c.pushFront(e)
	} else {
		if e != nil { // another key of the same hash
			c.unlink(e)
			c.cost -= e.cost
		}
		e := &cacheEntry[G]{key: string(s), hash: h, g: g, cost: cost}
		c.m[h] = e
		c.cost += cost
		c.pushFront(e)
	}
	for c.cost > c.budget {
		old := c.ring.prev
		c.unlink(old)
		delete(c.m, old.hash)
		c.cost -= old.cost
	}
}

// sum is the hash of a key.
func (c *Cache[G]) sum(s sdk.State) uint64 {
	if c.collide {
		return 0
	}
	return maphash.Bytes(c.seed, s)
}

// Len is the number of entries held.
func (c *Cache[G]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Cost is the estimated bytes held, keys included.
func (c *Cache[G]) Cost() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cost
}

func (c *Cache[G]) unlink(e *cacheEntry[G]) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (c *Cache[G]) pushFront(e *cacheEntry[G]) {
	e.prev, e.next = &c.ring, c.ring.next
	c.ring.next.prev = e
	c.ring.next = e
}
