package room

import (
	"slices"

	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
)

// eventRing keeps the last events added, up to a limit, in a ring. Each
// is kept as a recentEvent, the fields apply sets: a whole Event is ~300
// bytes of mostly nil pointers, which the garbage collector scanned in
// every room on every cycle.
type eventRing struct {
	evs    []recentEvent
	oldest int // where the oldest is once evs is at the limit
}

// recentEvent is an Event as apply makes it (the only events a ring
// holds): its type, version, round, seat, move, played move, computer flag
// and pending new round.
type recentEvent struct {
	typ      string
	move     sdk.Move
	played   *sdk.PlayedMove
	newRound *protocol.Pending
	version  int64
	round    int
	seat     sdk.Seat
	hasSeat  bool
	computer bool
	claimed  bool
	name     string
}

func keepEvent(ev *protocol.Event) recentEvent {
	e := recentEvent{typ: ev.Type, move: ev.Move, played: ev.Played, newRound: ev.NewRound,
		version: ev.Version, round: ev.Round, computer: ev.Computer, claimed: ev.Claimed, name: ev.Name}
	if ev.Seat != nil {
		e.seat, e.hasSeat = *ev.Seat, true
	}
	return e
}

func (e *recentEvent) event() protocol.Event {
	ev := protocol.Event{Type: e.typ, Version: e.version, Round: e.round, Move: e.move, Played: e.played,
		Computer: e.computer, NewRound: e.newRound, Claimed: e.claimed, Name: e.name}
	if e.hasSeat {
		ev.Seat = seatPtr(e.seat)
	}
	return ev
}

// add keeps ev, which must be an event as apply makes it (keepEvent).
func (q *eventRing) add(ev protocol.Event, limit int) {
	if len(q.evs) < limit {
		q.evs = append(q.evs, keepEvent(&ev))
		return
	}
	q.evs[q.oldest] = keepEvent(&ev)
	q.oldest = (q.oldest + 1) % len(q.evs)
}

func (q *eventRing) len() int { return len(q.evs) }

// back is the n-th last event (1: the last); 1 <= n <= len.
func (q *eventRing) back(n int) protocol.Event {
	return q.evs[(q.oldest+len(q.evs)-n)%len(q.evs)].event()
}

// last is the last n events, oldest first, in a list of their own.
func (q *eventRing) last(n int) []protocol.Event {
	out := make([]protocol.Event, n)
	for i := range out {
		out[i] = q.back(n - i)
	}
	return out
}

func seatPtr(s sdk.Seat) *sdk.Seat { return &s }

// sameCell is a == b, the numbers first and inline: through the generated
// struct equality the comparison of a board's 81 cells was ~1% of the
// host's CPU.
func sameCell(a, b *sdk.Cell) bool {
	return a.Owner == b.Owner && a.Facing == b.Facing && a.Promoted == b.Promoted &&
		a.Flipped == b.Flipped && a.Kind == b.Kind
}

// boardChanges is the cells of next that differ from prev, and false when
// the boards are not of one size (then the whole board must travel).
func boardChanges(prev, next []sdk.Cell) ([]protocol.CellAt, bool) {
	if len(prev) != len(next) || len(next) == 0 {
		return nil, false
	}
	var out []protocol.CellAt
	for i := range next {
		if !sameCell(&next[i], &prev[i]) {
			out = append(out, protocol.CellAt{At: i, Cell: next[i]})
		}
	}
	return out, true
}

// ownMoves is the moves of legal that seat makes: legal itself when they
// all are (one seat to move, the usual case: the list is only read), else
// a new list of them, nil for none.
func ownMoves(legal []sdk.LegalMove, seat sdk.Seat) []sdk.LegalMove {
	i := slices.IndexFunc(legal, func(l sdk.LegalMove) bool { return l.Seat != seat })
	if i < 0 {
		if len(legal) == 0 {
			return nil
		}
		return legal
	}
	out := slices.Clone(legal[:i])
	for _, l := range legal[i:] {
		if l.Seat == seat {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
