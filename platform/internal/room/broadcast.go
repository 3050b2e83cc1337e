package room

// BatchSubscriber is a Subscriber that can queue several messages to leave
// in one write (package socket's connections are). The mover's event and
// ack go out together this way: one write system call instead of two.
type BatchSubscriber interface {
	Subscriber
	SendAll(msgs ...[]byte) bool
}

// broadcastAck is broadcast followed by ack to the session that acted;
// what broadcast sends the actor is held back and queued with the ack in
// one SendAll when its subscriber can. Called with r.mu held, like
// broadcast, which is what keeps the swap of actor.sub private.
func (r *Room) broadcastAck(ev Event, actor *Session, ack []byte) {
	bs, ok := actor.sub.(BatchSubscriber)
	if !ok {
		r.broadcast(ev)
		actor.send(ack)
		return
	}
	held := &holdBack{Subscriber: bs}
	actor.sub = held
	r.broadcast(ev)
	actor.sub = bs
	bs.SendAll(append(held.msgs, ack)...)
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
