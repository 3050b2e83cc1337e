package ratelimit

import (
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	now := time.Unix(0, 0)
	l := New(6, 3, func() time.Time { return now }) // a token every 10 s
	for i := range 3 {
		if !l.Allow("a") {
			t.Fatalf("request %d of the burst refused", i)
		}
	}
	if l.Allow("a") || !l.Exhausted("a") {
		t.Error("a fourth request within the burst allowed")
	}
	if !l.Allow("b") {
		t.Error("another key is limited by the first")
	}
	now = now.Add(10 * time.Second)
	if !l.Allow("a") || l.Allow("a") {
		t.Error("after 10 s exactly one token should be back")
	}
	if !New(0, 0, nil).Allow("x") {
		t.Error("a zero rate should allow everything")
	}
}
