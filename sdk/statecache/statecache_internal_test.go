package statecache

import (
	"testing"

	"github.com/banmen/banmen/sdk"
)

// TestStateCacheCollision: of two keys with the same hash, the later put
// replaces the other, and neither ever answers for the other.
func TestStateCacheCollision(t *testing.T) {
	c := New[int](1 << 20)
	c.collide = true
	a, b := sdk.State("first"), sdk.State("second")
	c.Put(a, 1, 10)
	if _, ok := c.Get(b); ok {
		t.Fatal("a key of the same hash hits another's entry")
	}
	c.Put(b, 2, 20)
	if _, ok := c.Get(a); ok {
		t.Error("the replaced key still hits")
	}
	if g, ok := c.Get(b); !ok || g != 2 {
		t.Errorf("Get(later key) = %d, %v; want 2, true", g, ok)
	}
	if c.Len() != 1 || c.Cost() != 20+len(b) {
		t.Errorf("Len %d, Cost %d; want 1, %d", c.Len(), c.Cost(), 20+len(b))
	}
}
