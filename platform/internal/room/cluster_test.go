package room

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/internal/pgtest"
	"github.com/banmen/banmen/platform/internal/store/postgres"
	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// A host of the cluster, in-process: its own pool on the shared database,
// its own listener and rooms in memory.
type pgHost struct {
	m  *Manager
	st *postgres.Store
	cl *postgres.Cluster
}

func newPGHost(t *testing.T, dsn, name string) *pgHost {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := postgres.Open(ctx, dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl := st.Cluster(name, time.Minute)
	if _, err := cl.Heartbeat(ctx); err != nil {
		t.Fatal(err)
	}
	h := &pgHost{st: st, cl: cl, m: New(Config{Store: st, Rules: ttt, Cluster: cl})}
	listening := make(chan struct{})
	var once sync.Once
	done := make(chan struct{})
	go func() {
		defer close(done)
		st.Listen(ctx, slog.Default(), func(n postgres.Note) {
			switch n.Kind {
			case postgres.NoteAction:
				h.m.Changed(n.Room, n.Version)
			case postgres.NotePresence:
				h.m.PresenceChanged(n.Room)
			case postgres.NotePurged:
				h.m.Purged(n.Room)
			case postgres.NoteResync:
				h.m.Resync()
				once.Do(func() { close(listening) })
			}
		})
	}()
	<-listening
	t.Cleanup(func() { cancel(); <-done; st.Close() })
	return h
}

// csub is a connection whose events a test can wait for.
type csub struct {
	mu     sync.Mutex
	events []protocol.Event
	closed int
	wake   chan struct{}
}

func newCsub() *csub { return &csub{wake: make(chan struct{}, 1)} }

func (s *csub) Send(b []byte) bool {
	var ev protocol.Event
	if err := json.Unmarshal(b, &ev); err != nil {
		panic(err)
	}
	s.mu.Lock()
	s.events = append(s.events, ev)
	s.mu.Unlock()
	s.poke()
	return true
}

func (s *csub) Close(code int, _ string) {
	s.mu.Lock()
	s.closed = code
	s.mu.Unlock()
	s.poke()
}

func (s *csub) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// await waits until ok holds of everything received so far (the events and
// the close code); a minute without is a failure, not a timing assertion.
func (s *csub) await(t *testing.T, what string, ok func(evs []protocol.Event, closed int) bool) []protocol.Event {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		s.mu.Lock()
		evs, closed := slices.Clone(s.events), s.closed
		s.mu.Unlock()
		if ok(evs, closed) {
			return evs
		}
		select {
		case <-s.wake:
		case <-deadline:
			t.Fatalf("waited a minute for %s; got %+v (closed %d)", what, evs, closed)
		}
	}
}

// atVersion waits until an event of version v arrived.
func (s *csub) atVersion(t *testing.T, v int64) {
	t.Helper()
	s.await(t, fmt.Sprintf("version %d", v), func(evs []protocol.Event, _ int) bool {
		return slices.ContainsFunc(evs, func(e protocol.Event) bool { return e.Version >= v })
	})
}

// answer waits for the ack or refusal of request id.
func (s *csub) answer(t *testing.T, id string) protocol.Event {
	t.Helper()
	var got protocol.Event
	s.await(t, "the answer to "+id, func(evs []protocol.Event, _ int) bool {
		i := slices.IndexFunc(evs, func(e protocol.Event) bool {
			return e.ID == id && (e.Type == protocol.EvAck || e.Type == protocol.EvRefused)
		})
		if i >= 0 {
			got = evs[i]
		}
		return i >= 0
	})
	return got
}

func seatsConnected(evs []protocol.Event) []bool {
	for i := len(evs) - 1; i >= 0; i-- {
		if p := evs[i].Presence; p != nil {
			out := make([]bool, len(p.Seats))
			for j, s := range p.Seats {
				out[j] = s.Connected
			}
			return out
		}
	}
	return nil
}

func joinOn(t *testing.T, h *pgHost, room string, hello Hello) (*Session, *csub) {
	t.Helper()
	s := newCsub()
	sess, err := h.m.Join(context.Background(), room, hello, s)
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	return sess, s
}

// twoHostRoom is a tic-tac-toe room with seat 0 on host a, seat 1 on b,
// both connected and known to be so on both hosts.
func twoHostRoom(t *testing.T, a, b *pgHost) (room string, s [2]*Session, c [2]*csub) {
	t.Helper()
	cr, err := a.m.Create(context.Background(), "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	s[0], c[0] = joinOn(t, a, cr.Room, Hello{SeatKey: cr.SeatKey})
	s[1], c[1] = joinOn(t, b, cr.Room, Hello{})
	// Host a hears of the claim and the connection on b.
	for i := range c {
		c[i].await(t, "both seats connected", func(evs []protocol.Event, _ int) bool {
			return slices.Equal(seatsConnected(evs), []bool{true, true})
		})
	}
	c[0].atVersion(t, 1)
	return cr.Room, s, c
}

var reqSeq atomic.Int64

func cact(s *Session, typ string, version int64, move sdk.Move) string {
	id := fmt.Sprint("r", reqSeq.Add(1))
	s.Act(context.Background(), protocol.Request{Type: typ, ID: id, Version: &version, Move: move})
	return id
}

// TestTwoHostsOneGame: the two players of a room are on different hosts;
// every move is acknowledged on its host and reaches the other, and the
// log holds each once.
func TestTwoHostsOneGame(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := newPGHost(t, dsn, "a"), newPGHost(t, dsn, "b")
	room, s, c := twoHostRoom(t, a, b)
	// X (seat 0) wins on the top row; O plays the middle row.
	moves := []sdk.Move{"a1", "a2", "b1", "b2", "c1"}
	version := int64(1)
	for i, m := range moves {
		p := i % 2
		id := cact(s[p], protocol.TypeMove, version, m)
		if ev := c[p].answer(t, id); ev.Type != protocol.EvAck {
			t.Fatalf("move %s on host %d: %+v", m, p, ev)
		}
		version++
		c[1-p].atVersion(t, version) // the other host caught up
	}
	evs := c[1].await(t, "the last move's view", func(evs []protocol.Event, _ int) bool {
		i := slices.IndexFunc(evs, func(e protocol.Event) bool { return e.Type == protocol.EvMove && e.Version == version })
		return i >= 0 && evs[i].View != nil && evs[i].View.Status == sdk.Over
	})
	_ = evs
	acts, err := a.st.Actions(context.Background(), room, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []sdk.Move
	for _, x := range acts {
		if x.Kind == kindMove {
			got = append(got, sdk.Move(x.Move))
		}
	}
	if !slices.Equal(got, moves) {
		t.Errorf("log moves = %v, want %v exactly once each", got, moves)
	}
}

// TestTwoHostsRaceOneWins: both players resign at the same version, each
// on its own host, at once: exactly one resignation is played, the other
// is refused as stale, on every try.
func TestTwoHostsRaceOneWins(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := newPGHost(t, dsn, "a"), newPGHost(t, dsn, "b")
	for try := range 5 {
		room, s, c := twoHostRoom(t, a, b)
		var ids [2]string
		var wg sync.WaitGroup
		start := make(chan struct{})
		for p := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ids[p] = cact(s[p], protocol.TypeResign, 1, "")
			}()
		}
		close(start)
		wg.Wait()
		acks := 0
		for p := range 2 {
			switch ev := c[p].answer(t, ids[p]); {
			case ev.Type == protocol.EvAck && !ev.Duplicate:
				acks++
			case ev.Type == protocol.EvRefused && ev.Code == "stale":
			default:
				t.Errorf("try %d seat %d: %+v", try, p, ev)
			}
		}
		acts, _ := a.st.Actions(context.Background(), room, 1)
		if acks != 1 || len(acts) != 1 {
			t.Errorf("try %d: %d acks, log after the claim %+v; want exactly one resignation", try, acks, acts)
		}
		s[0].Leave()
		s[1].Leave()
	}
}

// TestSecondTabOnOtherHostReplaces: a seat's key connects on another
// host; the first connection is told it was replaced and closed, and the
// seat stays connected.
func TestSecondTabOnOtherHostReplaces(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := newPGHost(t, dsn, "a"), newPGHost(t, dsn, "b")
	cr, err := a.m.Create(context.Background(), "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, first := joinOn(t, a, cr.Room, Hello{SeatKey: cr.SeatKey})
	second, tab := joinOn(t, b, cr.Room, Hello{SeatKey: cr.SeatKey})
	first.await(t, "replaced", func(evs []protocol.Event, closed int) bool {
		_, ok := find(evs, protocol.EvReplaced)
		return ok && closed == protocol.CloseReplaced
	})
	// The guest joins on a: it sees seat 0 connected (on b).
	_, guest := joinOn(t, a, cr.Room, Hello{})
	guest.await(t, "both connected", func(evs []protocol.Event, _ int) bool {
		return slices.Equal(seatsConnected(evs), []bool{true, true})
	})
	// The second tab leaves: a hears seat 0 is away.
	second.Leave()
	guest.await(t, "seat 0 away", func(evs []protocol.Event, _ int) bool {
		return slices.Equal(seatsConnected(evs), []bool{false, true})
	})
	_ = tab
}

// TestSeatCodeAcrossHosts: a seat code asked for on one host moves the
// seat to a device on the other; the old connection is told it moved, and
// the code works once.
func TestSeatCodeAcrossHosts(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := newPGHost(t, dsn, "a"), newPGHost(t, dsn, "b")
	room, s, c := twoHostRoom(t, a, b)
	id := cact(s[0], protocol.TypeSeatCode, 0, "")
	var code string
	c[0].await(t, "a seat code", func(evs []protocol.Event, _ int) bool {
		i := slices.IndexFunc(evs, func(e protocol.Event) bool { return e.ID == id && e.Type == protocol.EvSeatCode })
		if i >= 0 {
			code = evs[i].SeatCode
		}
		return i >= 0
	})
	moved, dev := joinOn(t, b, room, Hello{Code: code})
	if moved.Seat() != 0 {
		t.Fatalf("the code moved seat %d, want 0", moved.Seat())
	}
	welcome, _ := find(dev.await(t, "welcome", func(evs []protocol.Event, _ int) bool { _, ok := find(evs, protocol.EvWelcome); return ok }), protocol.EvWelcome)
	if welcome.SeatKey == "" {
		t.Error("the moved seat got no new key")
	}
	c[0].await(t, "moved", func(evs []protocol.Event, closed int) bool {
		i := slices.IndexFunc(evs, func(e protocol.Event) bool { return e.Type == protocol.EvReplaced })
		return i >= 0 && evs[i].Reason == "moved" && closed == protocol.CloseReplaced
	})
	if _, err := a.m.Join(context.Background(), room, Hello{Code: code}, newCsub()); err != ErrBadCode {
		t.Errorf("the used code on the other host: %v, want ErrBadCode", err)
	}
}

// TestHostTakenForDeadRejoins: the other hosts take a host for dead (its
// heartbeat was late) and drop its connections; its next heartbeat records
// them again and the players on the other host see them back.
func TestHostTakenForDeadRejoins(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := newPGHost(t, dsn, "a"), newPGHost(t, dsn, "b")
	_, _, c := twoHostRoom(t, a, b)
	ctx := context.Background()
	// A host whose TTL is a nanosecond takes every other host for dead.
	if _, err := a.st.Cluster("reaper", time.Nanosecond).Heartbeat(ctx); err != nil {
		t.Fatal(err)
	}
	c[1].await(t, "seat 0 away on b", func(evs []protocol.Event, _ int) bool {
		return slices.Equal(seatsConnected(evs), []bool{false, true})
	})
	for _, h := range []*pgHost{a, b} {
		rejoined, err := h.cl.Heartbeat(ctx)
		if err != nil || !rejoined {
			t.Fatalf("heartbeat after being taken for dead: rejoined %v, %v", rejoined, err)
		}
		h.m.Rejoined()
	}
	for i := range c {
		c[i].await(t, "both connected again", func(evs []protocol.Event, _ int) bool {
			return slices.Equal(seatsConnected(evs), []bool{true, true})
		})
	}
	if rejoined, err := a.cl.Heartbeat(ctx); err != nil || rejoined {
		t.Errorf("a heartbeat of a host alive: rejoined %v, %v", rejoined, err)
	}
}

// TestListenerReconnects: a host's LISTEN connection is cut; the moves made
// on the other host meanwhile reach its player once it has listened again
// (it catches every room up after reconnecting: notes sent while it was
// not listening are lost).
func TestListenerReconnects(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := newPGHost(t, dsn, "a"), newPGHost(t, dsn, "b")
	_, s, c := twoHostRoom(t, a, b)
	ctx := context.Background()
	// Cut every LISTEN connection; then b's player moves.
	if _, err := a.st.Exec(ctx, `SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	id := cact(s[0], protocol.TypeMove, 1, "a1")
	if ev := c[0].answer(t, id); ev.Type != protocol.EvAck {
		t.Fatalf("move on a: %+v", ev)
	}
	c[1].atVersion(t, 2) // b heard of it, after listening again
	id = cact(s[1], protocol.TypeMove, 2, "b2")
	if ev := c[1].answer(t, id); ev.Type != protocol.EvAck {
		t.Fatalf("move on b: %+v", ev)
	}
	c[0].atVersion(t, 3)
}

// TestSpectatorsCountedOnEveryHost: the spectators of a room are counted
// on every host, wherever they watch.
func TestSpectatorsCountedOnEveryHost(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := newPGHost(t, dsn, "a"), newPGHost(t, dsn, "b")
	room, _, c := twoHostRoom(t, a, b)
	spectators := func(evs []protocol.Event) int {
		for i := len(evs) - 1; i >= 0; i-- {
			if p := evs[i].Presence; p != nil {
				return p.Spectators
			}
		}
		return -1
	}
	w, _ := joinOn(t, a, room, Hello{}) // every seat is taken: it watches
	if w.Seat() != -1 {
		t.Fatalf("the third visitor got seat %d", w.Seat())
	}
	joinOn(t, b, room, Hello{})
	for i := range c {
		c[i].await(t, "two spectators", func(evs []protocol.Event, _ int) bool { return spectators(evs) == 2 })
	}
	w.Leave()
	for i := range c {
		c[i].await(t, "one spectator", func(evs []protocol.Event, _ int) bool { return spectators(evs) == 1 })
	}
}
