package sdk

import "sync"

// StateCache keeps the games a plugin produced lately, keyed by the exact
// bytes of the State it returned with each, so that the next call on that
// State can skip decoding and replaying it. A room sends back the State the
// last Play returned, so with a cache a move costs the same at ply 160 as
// at ply 10.
//
// A hit needs the whole State to be equal, byte for byte, to one this
// process put (the key is the full bytes, not a hash of them), so a forged
// or altered State can never reach a cached game: it misses, and the
// plugin decodes and validates it fully as before. The cache is only a
// cache: the State still carries the whole game, a miss (another process,
// a restart, an evicted entry) gives the same answers, only slower.
//
// Memory is bounded by a budget: each Put names the cost of its entry (an
// estimate of the game's bytes; the key's bytes are added), and the least
// recently used entries go when the total would exceed the budget. It is
// safe for concurrent use. A nil *StateCache caches nothing.
//
// The values are shared by every caller that gets them: a plugin must
// never change a game it put or got, but copy what it changes (a game that
// only grows may share its slices' backing arrays with a copy that appends,
// as long as no two copies append to the same array).
type StateCache[G any] struct {
	mu     sync.Mutex
	budget int
	cost   int
	m      map[string]*cacheEntry[G]
	ring   cacheEntry[G] // sentinel: ring.next is the most recent entry
}

type cacheEntry[G any] struct {
	key        string
	g          G
	cost       int
	prev, next *cacheEntry[G]
}

// NewStateCache returns an empty cache holding at most budget bytes of
// estimated cost.
func NewStateCache[G any](budget int) *StateCache[G] {
	c := &StateCache[G]{budget: budget, m: map[string]*cacheEntry[G]{}}
	c.ring.prev, c.ring.next = &c.ring, &c.ring
	return c
}

// Get returns the game put with exactly the bytes s, and marks it used.
func (c *StateCache[G]) Get(s State) (g G, ok bool) {
	if c == nil {
		return g, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[string(s)]
	if e == nil {
		return g, false
	}
	c.unlink(e)
	c.pushFront(e)
	return e.g, true
}

// Put remembers g as the game of the State s, at the given estimated cost
// in bytes (len(s) is added). An entry dearer than the whole budget is not
// kept. s is copied.
func (c *StateCache[G]) Put(s State, g G, cost int) {
	if c == nil {
		return
	}
	cost += len(s)
	if cost > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.m[string(s)]; e != nil {
		c.cost += cost - e.cost
		e.g, e.cost = g, cost
		c.unlink(e)
		c.pushFront(e)
	} else {
		e := &cacheEntry[G]{key: string(s), g: g, cost: cost}
		c.m[e.key] = e
		c.cost += cost
		c.pushFront(e)
	}
	for c.cost > c.budget {
		old := c.ring.prev
		c.unlink(old)
		delete(c.m, old.key)
		c.cost -= old.cost
	}
}

// Len is the number of entries held.
func (c *StateCache[G]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// Cost is the estimated bytes held, keys included.
func (c *StateCache[G]) Cost() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cost
}

func (c *StateCache[G]) unlink(e *cacheEntry[G]) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (c *StateCache[G]) pushFront(e *cacheEntry[G]) {
	e.prev, e.next = &c.ring, c.ring.next
	c.ring.next.prev = e
	c.ring.next = e
}
