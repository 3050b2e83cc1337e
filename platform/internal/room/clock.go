package room

import (
	"time"

	"github.com/banmen/banmen/sdk"
)

// The time per move lives here, on the server: a turn begins at the time of
// the action that made it (a move, the start, a new round), as logged, and
// ends MoveTime later. The page only shows the countdown it is sent; when
// the time is up the computer moves for the seat (computer.go), the check
// priority answer included, since it is a turn like any other.

// Clock is the time per move of the turn in progress, sent with every event
// that changes the turn and in welcome.
type Clock struct {
	Seat sdk.Seat `json:"seat"`
	// Limit is the time per move, Remaining what is left of it when the
	// message was sent, both in milliseconds.
	Limit     int64 `json:"limit"`
	Remaining int64 `json:"remaining"`
}

// clock is the turn's clock, nil without a time per move or a turn.
func (r *Room) clock(now time.Time) *Clock {
	d := r.moveTime()
	if d <= 0 || !r.startedPlay() || r.view.Status != sdk.Playing || len(r.view.ToMove) == 0 {
		return nil
	}
	left := max(0, r.turnAt.Add(d).Sub(now))
	return &Clock{Seat: r.view.ToMove[0], Limit: d.Milliseconds(), Remaining: left.Milliseconds()}
}

// turnDue is when the turn in progress runs out, zero without a limit.
func (r *Room) turnDue() time.Time {
	d := r.moveTime()
	if d <= 0 {
		return time.Time{}
	}
	return r.turnAt.Add(d)
}
