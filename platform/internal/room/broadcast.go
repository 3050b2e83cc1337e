package room

import (
	"slices"

	"github.com/banmen/banmen/sdk"
)

// BatchSubscriber is a Subscriber that can queue several messages to leave
// in one write (package socket's connections are). The mover's event and
// ack go out together this way: one write system call instead of two.
type BatchSubscriber interface {
	Subscriber
	// SendAll is Send of every message, in order; like Send's, the
	// messages are lent for the call only.
	SendAll(msgs ...[]byte) bool
}

// broadcastAck is broadcast followed by ack to the session that acted;
// what broadcast sends the actor is held back and queued with the ack in
// one SendAll when its subscriber can. Called with r.mu held, like
// broadcast, which is what keeps the swap of actor.sub private.
//
// ack may be lent (encodeLent): it is given back with the broadcast's.
func (r *Room) broadcastAck(ev Event, actor *Session, ack []byte) {
	bs, ok := actor.sub.(BatchSubscriber)
	if !ok {
		r.sendEvent(ev)
		actor.send(ack)
		r.giveBack()
		return
	}
	held := &r.held
	held.Subscriber, held.msgs = bs, held.msgs[:0]
	actor.sub = held
	r.sendEvent(ev)
	actor.sub = bs
	held.msgs = append(held.msgs, ack)
	bs.SendAll(held.msgs...)
	clear(held.msgs)
	held.Subscriber, held.msgs = nil, held.msgs[:0]
	r.giveBack()
}

// holdBack keeps what is sent to it for a later SendAll.
type holdBack struct {
	Subscriber
	msgs [][]byte
}

func (h *holdBack) Send(b []byte) bool {
	h.msgs = append(h.msgs, b)
	return true
}

// ownMoves is the moves of legal that seat makes: legal itself when they
// all are (one seat to move, the usual case: the list is only read, and a
// copy of it per move was the largest allocation of a broadcast), else a
// new list of them, nil for none.
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
