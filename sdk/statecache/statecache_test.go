package statecache_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/statecache"
)

func TestStateCacheHitsOnlyExactBytes(t *testing.T) {
	c := statecache.New[int](1 << 20)
	s := sdk.SealState("x", 1, []byte("game"))
	c.Put(s, 7, 10)
	if g, ok := c.Get(s); !ok || g != 7 {
		t.Fatalf("Get(put state) = %d, %v; want 7, true", g, ok)
	}
	if g, ok := c.Get(append(sdk.State{}, s...)); !ok || g != 7 {
		t.Fatalf("Get(equal copy) = %d, %v; want 7, true", g, ok)
	}
	for i := range s {
		flipped := append(sdk.State{}, s...)
		flipped[i] ^= 1
		if _, ok := c.Get(flipped); ok {
			t.Errorf("a state with byte %d flipped hits", i)
		}
	}
	for _, other := range []sdk.State{nil, {}, s[:len(s)-1], append(append(sdk.State{}, s...), 0)} {
		if _, ok := c.Get(other); ok {
			t.Errorf("Get(%x) hits", other)
		}
	}
}

func TestStateCachePutCopiesTheKey(t *testing.T) {
	c := statecache.New[int](1 << 20)
	s := sdk.State("abc")
	c.Put(s, 1, 0)
	s[0] = 'x' // the caller reuses its buffer
	if _, ok := c.Get(sdk.State("abc")); !ok {
		t.Error("the entry is lost when the caller changes its bytes")
	}
	if _, ok := c.Get(s); ok {
		t.Error("the changed bytes hit")
	}
}

func TestStateCacheEvictsLeastRecentlyUsed(t *testing.T) {
	// Each entry costs 100 + its 2-byte key; the budget holds three.
	c := statecache.New[int](306)
	key := func(i int) sdk.State { return sdk.State(fmt.Sprintf("%02d", i)) }
	for i := range 3 {
		c.Put(key(i), i, 100)
	}
	c.Get(key(0)) // 0 is now the most recent; 1 the least
	c.Put(key(3), 3, 100)
	if _, ok := c.Get(key(1)); ok {
		t.Error("the least recently used entry was kept")
	}
	for _, i := range []int{0, 2, 3} {
		if g, ok := c.Get(key(i)); !ok || g != i {
			t.Errorf("entry %d: %d, %v", i, g, ok)
		}
	}
	if c.Len() != 3 || c.Cost() != 306 {
		t.Errorf("Len %d, Cost %d; want 3, 306", c.Len(), c.Cost())
	}
	c.Put(key(9), 9, 1000) // dearer than the budget: not kept, nothing evicted
	if _, ok := c.Get(key(9)); ok || c.Len() != 3 {
		t.Errorf("an entry over the budget was kept (Len %d)", c.Len())
	}
	c.Put(key(0), 5, 0) // replacing an entry updates its cost
	if g, _ := c.Get(key(0)); g != 5 || c.Cost() != 206 {
		t.Errorf("replaced entry %d, Cost %d; want 5, 206", g, c.Cost())
	}
}

func TestStateCacheNilCachesNothing(t *testing.T) {
	var c *statecache.Cache[int]
	c.Put(sdk.State("a"), 1, 0)
	if _, ok := c.Get(sdk.State("a")); ok || c.Len() != 0 || c.Cost() != 0 {
		t.Error("a nil cache holds something")
	}
}

func TestStateCacheConcurrent(t *testing.T) {
	c := statecache.New[int](50 * 10)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				s := sdk.State(fmt.Sprintf("%d-%d", w, i%100))
				if g, ok := c.Get(s); ok && g != i%100 {
					t.Errorf("%s holds %d", s, g)
					return
				}
				c.Put(s, i%100, 10)
			}
		}()
	}
	wg.Wait()
	if c.Cost() > 500 {
		t.Errorf("Cost %d over the budget 500", c.Cost())
	}
}
