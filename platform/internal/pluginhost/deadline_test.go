package pluginhost

import (
	"testing"
	"time"
)

// TestSharedDeadline: calls that start within one slice share a context
// whose deadline is at least the timeout after each of them, and at most a
// slice more; a call after the slice gets a new one.
func TestSharedDeadline(t *testing.T) {
	var d sharedDeadline
	const timeout = 256 * time.Second // a slice is a second
	t0 := time.Now()
	a := d.context(t0, timeout)
	b := d.context(t0.Add(999*time.Millisecond), timeout)
	if a != b {
		t.Fatal("two calls within one slice got different contexts")
	}
	dl, ok := a.Deadline()
	if !ok {
		t.Fatal("no deadline")
	}
	for _, start := range []time.Time{t0, t0.Add(999 * time.Millisecond)} {
		if left := dl.Sub(start); left < timeout || left > timeout+time.Second {
			t.Errorf("a call started at +%v has %v, want between %v and %v", start.Sub(t0), left, timeout, timeout+time.Second)
		}
	}
	c := d.context(t0.Add(time.Second), timeout)
	if c == a {
		t.Fatal("a call after the slice got the old context")
	}
	if dl2, _ := c.Deadline(); dl2.Sub(t0.Add(time.Second)) < timeout {
		t.Errorf("the new context leaves %v, want at least %v", dl2.Sub(t0.Add(time.Second)), timeout)
	}
}
