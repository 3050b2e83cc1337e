// Package ratelimit holds token buckets keyed by a string (a client's
// address, an IPv6 one by its /64: the server makes the key):
// each key may spend a burst at once and regains tokens at a steady rate.
// It must never block: a request over the limit is refused, not delayed.
package ratelimit

import (
	"sync"
	"time"
)

// maxKeys bounds memory: past it, the keys whose buckets are full again are
// forgotten.
const maxKeys = 100_000

// Limiter is a set of token buckets. The zero value is not usable; use New.
type Limiter struct {
	per   time.Duration // one token regained per this much time
	burst float64
	now   func() time.Time

	mu sync.Mutex
	m  map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// New returns a limiter of perMinute tokens a minute with the given burst; a
// nil now is time.Now. perMinute <= 0 allows everything.
func New(perMinute, burst int, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	if burst < 1 {
		burst = 1
	}
	l := &Limiter{burst: float64(burst), now: now, m: map[string]*bucket{}}
	if perMinute > 0 {
		l.per = time.Minute / time.Duration(perMinute)
	}
	return l
}

// RetryAfter is the whole seconds until an empty bucket has a token again
// (at least 1), for a Retry-After header.
func (l *Limiter) RetryAfter() int {
	return max(1, int((l.per+time.Second-1)/time.Second))
}

// Allow spends one of key's tokens, or reports false when it has none.
func (l *Limiter) Allow(key string) bool { return l.take(key, true) }

// Exhausted reports whether key has no token left, spending nothing.
func (l *Limiter) Exhausted(key string) bool { return !l.take(key, false) }

func (l *Limiter) take(key string, spend bool) bool {
	if l.per == 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b, ok := l.m[key]
	if !ok {
		if len(l.m) >= maxKeys {
			l.forgetFull(now)
		}
		b = &bucket{tokens: l.burst, at: now}
		l.m[key] = b
	}
	b.refill(now, l.per, l.burst)
	if b.tokens < 1 {
		return false
	}
	if spend {
		b.tokens--
	}
	return true
}

func (b *bucket) refill(now time.Time, per time.Duration, burst float64) {
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(burst, b.tokens+float64(d)/float64(per))
		b.at = now
	}
}

func (l *Limiter) forgetFull(now time.Time) {
	for k, b := range l.m {
		b.refill(now, l.per, l.burst)
		if b.tokens >= l.burst {
			delete(l.m, k)
		}
	}
}
