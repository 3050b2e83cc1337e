package room

import (
	"errors"
	"time"
)

// Limits of one room and one connection (docs/operations.md, "Running it
// in public"; why: docs/security.md): what a stranger's traffic may cost a
// room, without ever refusing the right player's key or losing a confirmed
// move.
//
//   - Watchers: a room takes at most Config.MaxWatchers spectators on a
//     host; one more is refused (ErrTooManyWatchers). A seated player is
//     never refused.
//   - Presence: at most one presence message per Config.PresenceEvery per
//     room. One that comes sooner waits for its slot and goes out then,
//     with the state as it is then: the last state wins and the last
//     change is always sent.
//   - Actions: each connection's actions (everything but ping) draw on a
//     token bucket (Config.ActionBurst, Config.ActionRate per second);
//     one over it is refused "rate_limited", never played, so the client
//     may send it again.
//   - Rounds without a move: at most Config.RoundsWithoutMove new rounds
//     and new-round requests since the last move played; more are
//     refused "play_first". A lone player can no longer log round after
//     round, nor keep the room from expiring with them.

// ErrTooManyWatchers refuses a spectator past the room's cap.
var ErrTooManyWatchers = errors.New("this room has as many spectators as it takes; try again later")

// bucket is a token bucket: burst at once, rate regained per second.
type bucket struct {
	n, burst, rate float64
	at             time.Time
}

func newBucket(burst int, rate float64, now time.Time) *bucket {
	return &bucket{n: float64(burst), burst: float64(burst), rate: rate, at: now}
}

// take spends a token at now, false when there is none.
func (b *bucket) take(now time.Time) bool {
	if now.After(b.at) {
		b.n = min(b.burst, b.n+now.Sub(b.at).Seconds()*b.rate)
		b.at = now
	}
	if b.n < 1 {
		return false
	}
	b.n--
	return true
}

// presenceSlot asks to send a presence at now, at most one per every: 0
// means send it now (the slot is taken); otherwise it is held, and wait is
// how long until its slot (presenceFlush sends it then).
func (g *game) presenceSlot(now time.Time, every time.Duration) (wait time.Duration) {
	if g.presenceHeld {
		return max(g.presenceAt.Add(every).Sub(now), time.Nanosecond)
	}
	if next := g.presenceAt.Add(every); every > 0 && !g.presenceAt.IsZero() && now.Before(next) {
		g.presenceHeld = true
		return next.Sub(now)
	}
	g.presenceAt = now
	return 0
}

// presenceFlush is the held presence's slot at now: true means send it
// (the state as it is now).
func (g *game) presenceFlush(now time.Time) bool {
	if !g.presenceHeld {
		return false
	}
	g.presenceHeld = false
	g.presenceAt = now
	return true
}
