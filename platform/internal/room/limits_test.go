package room

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/internal/store/sqlite"
	"github.com/banmen/banmen/platform/protocol"
)

// idleGame is twoSeats with a cap of 2 rounds and requests without a move.
func idleGame() *game { g := twoSeats(); g.idleCap = 2; return g }

func TestGameRoundsWithoutMove(t *testing.T) {
	for _, tc := range []struct {
		name  string
		game  func() *game
		steps []happening
	}{
		{name: "a lone player: rounds up to the cap", game: idleGame, steps: []happening{conn(0),
			ask(0, protocol.TypeNewRound, 0, "event:round"), ask(0, protocol.TypeNewRound, 1, "event:round"),
			ask(0, protocol.TypeNewRound, 2, "refused:play_first")}},
		{name: "a resignation is no move", game: idleGame, steps: []happening{conn(0),
			ask(0, protocol.TypeNewRound, 0, "event:round"), ask(0, protocol.TypeResign, 1, "event:move"),
			ask(0, protocol.TypeNewRound, 2, "event:round"), ask(0, protocol.TypeNewRound, 3, "refused:play_first")}},
		{name: "a move starts the count again", game: idleGame, steps: append(seated(),
			ask(0, protocol.TypeNewRound, 1, "event:request"), ask(0, protocol.TypeWithdraw, 2, "event:withdraw"),
			ask(0, protocol.TypeNewRound, 3, "event:request"), ask(1, protocol.TypeDecline, 4, "event:decline"),
			ask(1, protocol.TypeNewRound, 5, "refused:play_first"),
			move(0, 5, "b2", "event:move"), ask(1, protocol.TypeNewRound, 6, "event:request"))},
		{name: "answers are never refused", game: idleGame, steps: append(seated(),
			ask(0, protocol.TypeNewRound, 1, "event:request"), ask(1, protocol.TypeDecline, 2, "event:decline"),
			ask(1, protocol.TypeNewRound, 3, "event:request"), ask(0, protocol.TypeAccept, 4, "event:round"),
			ask(0, protocol.TypeNewRound, 5, "refused:play_first"))},
		{name: "no cap", game: twoSeats, steps: []happening{conn(0),
			ask(0, protocol.TypeNewRound, 0, "event:round"), ask(0, protocol.TypeNewRound, 1, "event:round"), ask(0, protocol.TypeNewRound, 2, "event:round")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.game()
			for i, s := range tc.steps {
				if got, _ := run(t, g, s); got != s.want {
					t.Fatalf("step %d (%+v): got %q, want %q", i, s.req, got, s.want)
				}
			}
		})
	}
}

// The room's expiry: a lone player's empty rounds stop at the cap, so the
// room expires a TTL after the last of them.
func TestEmptyRoundsDoNotKeepTheRoom(t *testing.T) {
	g := idleGame()
	run(t, g, conn(0))
	for i := range 5 {
		run(t, g, happening{seat: 0, req: protocol.Request{Type: protocol.TypeNewRound, Version: ver(g.version)}, at: time.Duration(i) * 24 * time.Hour})
	}
	if g.version != 2 || !g.touched.Equal(t0.Add(24*time.Hour)) {
		t.Fatalf("version %d touched %v: want 2 rounds logged, the last a day in", g.version, g.touched)
	}
	if !g.expired(t0.Add(9*24*time.Hour), 7*24*time.Hour) {
		t.Error("the room did not expire 7 days after its last round")
	}
}

func TestPresenceSlot(t *testing.T) {
	const every = 250 * time.Millisecond
	g := twoSeats()
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for i, s := range []struct {
		at    int  // ms
		flush bool // the held presence's slot came (else a presence is asked for)
		want  time.Duration
		sent  bool // with flush
	}{
		{at: 0, want: 0},                       // the first goes at once
		{at: 10, want: 240 * time.Millisecond}, // held
		{at: 20, want: 230 * time.Millisecond}, // still held: one send for both
		{at: 250, flush: true, sent: true},     // its slot: sent
		{at: 260, flush: true, sent: false},    // nothing held
		{at: 600, want: 0},                     // a quiet room sends at once
		{at: 601, want: 249 * time.Millisecond},
		{at: 900, flush: true, sent: true}, // a late timer still sends
	} {
		if s.flush {
			if got := g.presenceFlush(ms(s.at)); got != s.sent {
				t.Errorf("step %d: flush at %d ms sent %v, want %v", i, s.at, got, s.sent)
			}
			continue
		}
		if got := g.presenceSlot(ms(s.at), every); got != s.want {
			t.Errorf("step %d: slot at %d ms = %v, want %v", i, s.at, got, s.want)
		}
	}
}

// timers stands in for time.AfterFunc: the test fires what is due.
type timers struct {
	mu sync.Mutex
	fs []func()
}

func (ts *timers) after(_ time.Duration, f func()) {
	ts.mu.Lock()
	ts.fs = append(ts.fs, f)
	ts.mu.Unlock()
}

func (ts *timers) fire() int {
	ts.mu.Lock()
	fs := ts.fs
	ts.fs = nil
	ts.mu.Unlock()
	for _, f := range fs {
		f()
	}
	return len(fs)
}

// limitEnv is an env whose Manager has cfg's limits.
func limitEnv(t *testing.T, cfg Config) *env {
	e := newEnv(t)
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "limits.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg.Store, cfg.Rules, cfg.Now, cfg.TTL = st, e.rules, e.clock.Now, 7*24*time.Hour
	e.st, e.m = st, New(cfg)
	return e
}

func presences(evs []protocol.Event) []protocol.Event {
	var out []protocol.Event
	for _, ev := range evs {
		if ev.Type == protocol.EvPresence {
			out = append(out, ev)
		}
	}
	return out
}

func TestPresenceCoalesced(t *testing.T) {
	ts := &timers{}
	e := limitEnv(t, Config{AfterFunc: ts.after})
	c, _, _, hs, _, _ := twoPlayers(t, e) // (the guest's join held a presence)
	ts.fire()
	hs.take()
	e.clock.Add(time.Second)
	var watchers []*Session
	for range 20 { // 20 joins, 5 leaves, at one instant
		s, _ := e.join(c.Room, Hello{Watch: true})
		watchers = append(watchers, s)
	}
	for _, s := range watchers[:5] {
		s.Leave()
	}
	ps := presences(hs.take())
	if len(ps) != 1 || ps[0].Presence.Spectators != 1 {
		t.Fatalf("host got %d presences before the slot (%+v), want 1, at once, with 1 spectator", len(ps), ps)
	}
	if n := ts.fire(); n != 1 {
		t.Fatalf("%d timers set for one room's held presence, want 1", n)
	}
	ps = presences(hs.take())
	if len(ps) != 1 || ps[0].Presence.Spectators != 15 {
		t.Fatalf("host got %+v at the slot, want one presence with the last state (15 spectators)", ps)
	}
	if ts.fire() != 0 || len(hs.take()) != 0 {
		t.Error("something was sent or scheduled with nothing held")
	}
}

func TestWatcherCap(t *testing.T) {
	e := limitEnv(t, Config{MaxWatchers: 2, PresenceEvery: -1})
	c, _, guest, _, _, gkey := twoPlayers(t, e)
	e.join(c.Room, Hello{Watch: true})
	w2, _ := e.join(c.Room, Hello{})
	if _, err := e.m.Join(context.Background(), c.Room, Hello{Watch: true}, &sub{}); !errors.Is(err, ErrTooManyWatchers) {
		t.Fatalf("a third spectator: %v, want ErrTooManyWatchers", err)
	}
	guest.Leave()
	if _, err := e.m.Join(context.Background(), c.Room, Hello{SeatKey: gkey}, &sub{}); err != nil {
		t.Fatalf("the guest's key with the spectators full: %v", err)
	}
	w2.Leave()
	if _, err := e.m.Join(context.Background(), c.Room, Hello{Watch: true}, &sub{}); err != nil {
		t.Fatalf("a spectator after one left: %v", err)
	}
}

func TestActionRateLimit(t *testing.T) {
	e := limitEnv(t, Config{ActionBurst: 2, ActionRate: 1, PresenceEvery: -1})
	_, host, guest, hs, _, _ := twoPlayers(t, e)
	ping := func() {
		host.Act(context.Background(), protocol.Request{Type: protocol.TypePing, ID: "p"})
	}
	ping()
	ping()
	act(host, protocol.TypeSeatCode, 0, "")
	act(host, protocol.TypeMove, 1, "b2") // the bucket's second
	if a, _ := find(hs.take(), protocol.EvAck); a.Version != 2 {
		t.Fatalf("the host's move within the bucket was not acknowledged")
	}
	act(host, protocol.TypeNewRound, 2, "")
	if r := hs.last(t); r.Type != protocol.EvRefused || r.Code != "rate_limited" {
		t.Fatalf("the third action answered %+v, want refused rate_limited", r)
	}
	ping()
	if r := hs.last(t); r.Type != protocol.EvPong {
		t.Errorf("ping over the bucket answered %+v, want pong", r)
	}
	act(guest, protocol.TypeMove, 2, "a1") // another connection has its own bucket
	e.clock.Add(time.Second)
	act(host, protocol.TypeMove, 3, "c3") // a refused action is sent again later
	if r := hs.last(t); r.Type != protocol.EvAck || r.Version != 4 {
		t.Fatalf("the host's move a second later answered %+v, want its ack", r)
	}
}

func TestBucket(t *testing.T) {
	b := newBucket(2, 0.5, t0)
	for i, s := range []struct {
		at   time.Duration
		want bool
	}{{0, true}, {0, true}, {0, false}, {time.Second, false}, {2 * time.Second, true}, {2 * time.Second, false},
		{time.Second, false}, // a clock going back gives nothing
		{time.Hour, true}, {time.Hour, true}, {time.Hour, false}} {
		if got := b.take(t0.Add(s.at)); got != s.want {
			t.Errorf("take %d at %v = %v, want %v", i, s.at, got, s.want)
		}
	}
}
