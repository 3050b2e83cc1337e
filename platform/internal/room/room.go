package room

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
)

// Room is one room in memory: its state machine (game) and the
// connections it sends to, and the actor that does the I/O of its actions
// in one order: check → rules → append → apply → broadcast.
//
// Two locks: turn lets one action at a time through (a move, a claimed
// seat, a computer move, a catch-up from the log); mu guards the game and
// the connections, and is never held over a rules call or an append, so a
// connection that comes, goes or pings does not wait for them. turn is
// always taken before mu. Different rooms proceed in parallel.
type Room struct {
	m       *Manager
	id      string
	ready   chan struct{}
	loadErr error

	turn sync.Mutex
	mu   sync.Mutex
	g    *game

	conns      []*Session
	spectators map[*Session]struct{}
	codes      []seatCode
	codeFails  []time.Time
	thinking   bool // a computer move is being thought
	// presenceTimer: a held presence is due (AfterFunc is set).
	presenceTimer bool
	// gone: dropped from memory (a new Room will load); expiredGone: and
	// expired.
	gone, expiredGone bool
	// cl is what other hosts hold of the room (nil without a Cluster).
	cl *clusterRoom
}

// Subscriber is a connection as the room sees it.
type Subscriber interface {
	// Send queues one encoded message without blocking; false means the
	// queue was full and the connection is being dropped. msg is lent for
	// the call only: a Subscriber that keeps it must copy it.
	Send(msg []byte) bool
	// Close ends the connection with a WebSocket close code after what is
	// queued.
	Close(code int, reason string)
}

// BatchSubscriber is a Subscriber that can queue several messages to leave
// in one write (package socket's connections are). The mover's event and
// ack go out together this way: one write system call instead of two.
type BatchSubscriber interface {
	Subscriber
	// SendAll is Send of every message, in order; like Send's, the
	// messages are lent for the call only.
	SendAll(msgs ...[]byte) bool
}

// Session is one connection's membership of a room.
type Session struct {
	room *Room
	seat sdk.Seat // -1 for a spectator
	sub  Subscriber
	left bool
	conn string // its ID in the Cluster
	// actions is the connection's action bucket (limits.go).
	actions *bucket
}

// Seat is the session's seat, -1 for a spectator.
func (s *Session) Seat() sdk.Seat { return s.seat }

func (s *Session) send(b []byte) { s.sub.Send(b) }

// Hello is how a connection introduces itself.
type Hello struct {
	SeatKey string
	Code    string
	// Watch, without key or code, watches instead of taking a free seat.
	Watch bool
	// Version is the last version the client saw; nil for none.
	Version *int64
}

// ID is the room's ID.
func (r *Room) ID() string { return r.id }

// Current is the room's game as it stands: its variant, the state of the
// current round (a copy of the cache the log rebuilds) and the version it is
// at. The host exports a room's record from it; clients never get the state.
func (r *Room) Current() (variant string, st sdk.State, version int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.g.meta.Variant, append(sdk.State(nil), r.g.state...), r.g.version
}

// Export is the record of the room's current round in format (lang for
// its headers), made from the room's own state, and the version it shows.
func (r *Room) Export(ctx context.Context, format, lang string) (string, int64, error) {
	variant, st, version := r.Current()
	text, err := r.m.cfg.Rules.Export(ctx, ExportRequest{Variant: variant, State: st, Format: format, Lang: lang, Players: r.Names()})
	return text, version, err
}

// Rewind is the room's current round as it was after its first ply
// moves, and the version it is at: nothing in the room changes, and no
// state leaves it.
func (r *Room) Rewind(ctx context.Context, ply int) (sdk.View, int64, error) {
	variant, st, version := r.Current()
	v, err := r.m.cfg.Rules.Rewind(ctx, RewindRequest{Variant: variant, State: st, Ply: ply})
	return v, version, err
}

// Names are the names the seats' players gave, by seat ("" for none), or
// nil when none gave one; untrusted text (names.go).
func (r *Room) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range r.g.names {
		if n != "" {
			return slices.Clone(r.g.names)
		}
	}
	return nil
}

func (r *Room) idle() bool {
	return len(r.spectators) == 0 && !slices.ContainsFunc(r.conns, func(s *Session) bool { return s != nil })
}

func (r *Room) sessions() []*Session {
	var out []*Session
	for _, s := range r.conns {
		if s != nil {
			out = append(out, s)
		}
	}
	for s := range r.spectators {
		out = append(out, s)
	}
	return out
}

// storeErr is an append the store refused.
type storeErr struct{ err error }

func (e storeErr) Error() string { return "append: " + e.err.Error() }
func (e storeErr) Unwrap() error { return e.err }

// perform carries action a through the room: check, the rules, the
// append to the log (unless the action comes from it: a replay) and apply;
// then done, with the action's event, under mu. Called with turn held and
// mu not. A refusal is the rules' or the check's *sdk.RuleError; an append
// the store refused is a storeErr; the rest is the rules' failure.
func (r *Room) perform(ctx context.Context, a store.Action, logged bool, done func(protocol.Event)) error {
	r.mu.Lock()
	if r.gone && !logged {
		r.mu.Unlock()
		return errDropped
	}
	st, err := r.g.check(a)
	variant, state, from := r.g.meta.Variant, r.g.state, len(r.g.view.History)
	r.mu.Unlock()
	if err != nil {
		return err
	}
	var e effect
	switch {
	case st.play:
		s, v, err := r.m.cfg.Rules.Play(ctx, PlayRequest{Variant: variant, State: state, Seat: st.seat, Move: st.move, HistoryFrom: from})
		if err != nil {
			return err
		}
		e = r.g.answered(st, s, v) // (only this turn writes past the History's end)
	case st.newRound:
		s, v, err := r.m.cfg.Rules.Start(ctx, StartRequest{Variant: variant, Options: st.options})
		if err != nil {
			return err
		}
		e = r.g.answered(st, s, v)
	default:
		e = effect{step: st}
	}
	if !logged {
		if err := r.m.cfg.Store.Append(ctx, a); err != nil {
			return storeErr{err}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := r.g.apply(a, e)
	if done != nil {
		done(ev)
	}
	return nil
}

// join admits a connection: a seat key restores its seat (replacing the
// seat's previous connection), a seat code moves a seat here, no key takes
// the next free seat, and when none is free the connection watches. The
// welcome and whatever the client missed are queued on sub before it
// returns.
func (r *Room) join(ctx context.Context, h Hello, sub Subscriber) (*Session, error) {
	r.turn.Lock()
	defer r.turn.Unlock()
	r.catchUpTo(ctx, h.Version)
	r.mu.Lock()
	if err := r.usable(); err != nil {
		r.mu.Unlock()
		return nil, err
	}
	now := r.m.cfg.Now()
	s := &Session{room: r, seat: -1, sub: sub, actions: newBucket(r.m.cfg.ActionBurst, r.m.cfg.ActionRate, now)}
	var a store.Action
	var newKey string
	switch {
	case h.SeatKey != "":
		seat, ok := r.matchKey(h.SeatKey)
		if !ok {
			r.mu.Unlock()
			return nil, ErrBadKey
		}
		s.seat = seat
	case h.Code != "":
		seat, err := r.redeemCode(h.Code)
		if err != nil {
			r.mu.Unlock()
			return nil, err
		}
		key, hash := newKeyPair()
		a = store.Action{Room: r.id, Version: r.g.version + 1, Kind: kindRekey, Seat: int(seat), At: now, KeyHash: hash}
		s.seat, newKey = seat, key
	case r.g.broken == nil && !h.Watch:
		free := slices.Index(r.g.taken, false)
		if free < 0 || r.g.peopleSeated() {
			break // full, or full of the people it was made for: watch
		}
		key, hash := newKeyPair()
		a = store.Action{Room: r.id, Version: r.g.version + 1, Kind: kindClaim, Seat: free, At: now, KeyHash: hash}
		s.seat, newKey = sdk.Seat(free), key
	}
	r.mu.Unlock()
	if a.Kind != "" {
		err := r.perform(ctx, a, false, func(ev protocol.Event) {
			if old := r.conns[a.Seat]; old != nil && a.Kind == kindRekey {
				r.replace(old, "moved")
			}
			r.broadcast(ev)
		})
		var se storeErr
		switch {
		case errors.As(err, &se) && errors.Is(err, store.ErrConflict):
			if r.catchUp(ctx) == nil {
				return nil, errRetry
			}
			return nil, err
		case errors.As(err, &se):
			return nil, storeError(se.err)
		case err != nil:
			return nil, err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.usable(); err != nil {
		return nil, err
	}
	if s.seat >= 0 {
		if old := r.conns[s.seat]; old != nil {
			r.replace(old, "another_connection")
		}
		r.conns[s.seat] = s
		r.g.connect(s.seat)
		r.clusterJoined(s)
	} else {
		if len(r.spectators) >= r.m.cfg.MaxWatchers {
			return nil, ErrTooManyWatchers
		}
		r.spectators[s] = struct{}{}
		r.g.connect(-1)
		r.clusterWatchers()
	}
	for _, ev := range r.g.welcome(s.seat, h.Version, newKey, r.m.cfg.Now()) {
		s.send(r.encode(&ev))
	}
	r.broadcastPresence()
	r.kick()
	return s, nil
}

// usable is why the room takes no connection, nil when it does. Called
// with mu held.
func (r *Room) usable() error {
	switch {
	case r.expiredGone || r.g.expired(r.m.cfg.Now(), r.m.cfg.TTL):
		return ErrNotFound
	case r.gone:
		return errDropped
	}
	return nil
}

// replace tells a seat's old connection that another one took over.
// Called with mu held.
func (r *Room) replace(old *Session, reason string) {
	old.send(r.encode(&protocol.Event{Type: protocol.EvReplaced, Version: r.g.version, Reason: reason}))
	old.sub.Close(protocol.CloseReplaced, "replaced")
	old.left = true
	r.conns[old.seat] = nil
	r.g.disconnect(old.seat, r.m.cfg.Now())
}

// matchKey finds the seat a key holds, comparing hashes in constant time
// against every seat.
func (r *Room) matchKey(key string) (sdk.Seat, bool) {
	h := hashKey(key)
	found := -1
	for i, k := range r.g.keys {
		if k != nil && subtle.ConstantTimeCompare(k, h) == 1 {
			found = i
		}
	}
	return sdk.Seat(found), found >= 0
}

// Leave ends a session's membership (idempotent). The seat stays held.
func (s *Session) Leave() {
	r := s.room
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.left {
		return
	}
	s.left = true
	if s.seat >= 0 {
		if r.conns[s.seat] == s {
			r.conns[s.seat] = nil
			r.g.disconnect(s.seat, r.m.cfg.Now())
		}
	} else {
		delete(r.spectators, s)
		r.g.disconnect(-1, r.m.cfg.Now())
	}
	r.clusterLeft(s)
	r.broadcastPresence()
}

// Act handles one request of a joined session. Its answer (ack, refused,
// seatCode, pong) and any event are queued on the session's subscriber:
// the ack only once the action is stored, after its event.
func (s *Session) Act(ctx context.Context, req protocol.Request) {
	r := s.room
	if req.Type != protocol.TypePing && req.Type != protocol.TypeHello {
		r.turn.Lock()
		defer r.turn.Unlock()
	}
	r.mu.Lock()
	if s.left {
		r.mu.Unlock()
		return
	}
	now := r.m.cfg.Now()
	a, answer := r.g.decide(s.seat, req, now)
	if req.Type != protocol.TypePing && s.actions != nil && !s.actions.take(now) {
		a, answer = store.Action{}, refusal(r.g.version, req.ID, "rate_limited", "too many actions from this connection: wait a moment and send it again")
	}
	if answer != nil {
		s.send(r.encode(answer))
		r.mu.Unlock()
		return
	}
	if a.Kind == "" { // a seat code
		code, exp := r.newCode(s.seat)
		s.send(r.encode(&protocol.Event{Type: protocol.EvSeatCode, Version: r.g.version, ID: req.ID, SeatCode: code, Expires: &exp}))
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	err := r.perform(ctx, a, false, func(ev protocol.Event) {
		r.broadcastAck(ev, s, r.encode(&protocol.Event{Type: protocol.EvAck, Version: r.g.version, ID: req.ID}))
		if a.Kind == kindStart {
			r.broadcastPresence()
		}
		r.kick()
	})
	if err == nil {
		return
	}
	var se storeErr
	if errors.As(err, &se) && errors.Is(err, store.ErrConflict) {
		r.lostRace(ctx, s, req, a)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	refuse := func(code, msg string) { s.send(r.encode(refusal(r.g.version, req.ID, code, msg))) }
	switch re, rule := sdk.AsRuleError(err); {
	case rule:
		s.send(r.encode(&protocol.Event{Type: protocol.EvRefused, Version: r.g.version, ID: req.ID, Code: re.Code, Key: re.Key, Message: re.Message}))
	case errors.As(err, &se):
		r.m.cfg.Logger.Error("room action not stored", "room", r.id, "kind", a.Kind, "err", storeError(se.err))
		refuse("not_stored", "the action could not be stored; it was not played")
	case errors.Is(err, errDropped):
		refuse("not_stored", "the room closed; the action was not played")
	default:
		r.m.cfg.Logger.Warn("room action failed in the rules", "room", r.id, "kind", a.Kind, "err", err)
		refuse("unavailable", "the rules did not answer; the action was not played, try again")
	}
}

// broadcast sends a version-raising event to every connection, with the
// new view where it changed; each distinct audience is encoded once.
// Called with mu held.
func (r *Room) broadcast(ev protocol.Event) { r.broadcastAck(ev, nil, nil) }

// broadcastAck is broadcast followed by ack to the session that acted
// (none: nil): its event and ack go in one SendAll when its subscriber can.
func (r *Room) broadcastAck(ev protocol.Event, actor *Session, ack []byte) {
	now := r.m.cfg.Now()
	enc := map[sdk.Seat][]byte{}
	for _, s := range r.sessions() {
		aud := r.g.audience(s.seat)
		b, ok := enc[aud]
		if !ok {
			e := r.g.eventFor(ev, aud, now)
			b = r.encode(&e)
			enc[aud] = b
		}
		if s != actor {
			s.send(b)
			continue
		}
		if bs, ok := s.sub.(BatchSubscriber); ok {
			bs.SendAll(b, ack)
		} else {
			s.send(b)
			s.send(ack)
		}
		actor = nil
	}
	if actor != nil && ack != nil { // (an actor is one of the sessions while it has not left)
		actor.send(ack)
	}
}

// broadcastPresence tells every connection who is here, at most once
// per Config.PresenceEvery: a presence that comes sooner is held, and sent
// when its slot comes with the state as it is then (limits.go). Called
// with mu held.
func (r *Room) broadcastPresence() {
	wait := r.g.presenceSlot(r.m.cfg.Now(), r.m.cfg.PresenceEvery)
	if wait == 0 {
		r.sendPresence()
		return
	}
	if !r.presenceTimer {
		r.presenceTimer = true
		r.m.cfg.AfterFunc(wait, r.flushPresence)
	}
}

// flushPresence sends the held presence, if any (its slot came). It takes
// the turn first, so it never sends a state an action is half through (a
// seat claimed by a join whose connection is not yet counted).
func (r *Room) flushPresence() {
	r.turn.Lock()
	defer r.turn.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.presenceTimer = false
	if r.g.presenceFlush(r.m.cfg.Now()) {
		r.sendPresence()
	}
}

// sendPresence tells every connection who is here now. Called with mu held.
func (r *Room) sendPresence() {
	b := r.encode(&protocol.Event{Type: protocol.EvPresence, Version: r.g.version, Presence: r.g.presence(r.m.cfg.Now())})
	for _, s := range r.sessions() {
		s.send(b)
	}
}

// encode marshals an event; it cannot fail for these types (a failure is
// a bug, logged, and an error event instead).
func (r *Room) encode(ev *protocol.Event) []byte {
	b, err := protocol.Encode(ev)
	if err != nil {
		r.m.cfg.Logger.Error("encode room event", "room", r.id, "type", ev.Type, "err", err)
		b, _ = protocol.Encode(&protocol.Event{Type: protocol.EvError, Version: ev.Version, Code: "internal", Message: "internal error"})
	}
	return b
}

func storeError(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return ErrNotFound
	}
	return err
}

// lostRace answers a request whose append another host's action beat: the
// room catches up, and the request is a duplicate (acknowledged) or stale.
// Called with turn held and mu not.
func (r *Room) lostRace(ctx context.Context, s *Session, req protocol.Request, a store.Action) {
	v := a.Version - 1
	if err := r.catchUp(ctx); err != nil {
		r.m.cfg.Logger.Warn("room catch-up failed", "room", r.id, "err", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.g.isDuplicate(v, a) {
		s.send(r.encode(&protocol.Event{Type: protocol.EvAck, Version: r.g.version, ID: req.ID, Duplicate: true}))
		return
	}
	s.send(r.encode(refusal(r.g.version, req.ID, "stale", fmt.Sprintf("the room is at version %d, not %d", r.g.version, v))))
}
