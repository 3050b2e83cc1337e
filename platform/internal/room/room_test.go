package room

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/internal/store/sqlite"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/examples/tictactoe"
)

// variants runs real rules in-process.
type variants map[string]sdk.Variant

func (v variants) Describe(id string) (sdk.Description, bool) {
	x, ok := v[id]
	if !ok {
		return sdk.Description{}, false
	}
	return x.Describe(), true
}

func (v variants) Start(_ context.Context, id string, o sdk.Options) (sdk.State, sdk.View, error) {
	return v[id].Start(o)
}

func (v variants) Play(_ context.Context, id string, s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	return v[id].Play(s, seat, m)
}

var ttt = variants{"tictactoe": tictactoe.Variant{}}

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// sub is a fake connection that records what it is sent.
type sub struct {
	mu     sync.Mutex
	events []Event
	closed int
}

func (s *sub) Send(b []byte) bool {
	var ev Event
	if err := json.Unmarshal(b, &ev); err != nil {
		panic(err)
	}
	s.mu.Lock()
	s.events = append(s.events, ev)
	s.mu.Unlock()
	return true
}

func (s *sub) Close(code int, _ string) { s.mu.Lock(); s.closed = code; s.mu.Unlock() }

// take returns and forgets what was sent so far.
func (s *sub) take() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.events
	s.events = nil
	return out
}

func (s *sub) last(t *testing.T) Event {
	t.Helper()
	evs := s.take()
	if len(evs) == 0 {
		t.Fatal("nothing sent")
	}
	return evs[len(evs)-1]
}

// find returns the first event of type typ.
func find(evs []Event, typ string) (Event, bool) {
	for _, e := range evs {
		if e.Type == typ {
			return e, true
		}
	}
	return Event{}, false
}

type env struct {
	t     *testing.T
	path  string
	st    store.Store
	clock *clock
	rules Rules
	m     *Manager
}

func newEnv(t *testing.T) *env { return newEnvWith(t, ttt) }

// newEnvWith is newEnv with other rules.
func newEnvWith(t *testing.T, rules Rules) *env {
	e := &env{t: t, path: filepath.Join(t.TempDir(), "rooms.db"), clock: &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}, rules: rules}
	e.restart()
	return e
}

// restart is a new host process on the same database file.
func (e *env) restart() {
	if e.st != nil {
		e.st.Close()
	}
	st, err := sqlite.Open(e.path)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { st.Close() })
	e.st = st
	e.m = New(Config{Store: st, Rules: e.rules, Now: e.clock.Now, TTL: 7 * 24 * time.Hour})
}

func (e *env) join(id string, h Hello) (*Session, *sub) {
	e.t.Helper()
	s := &sub{}
	sess, err := e.m.Join(context.Background(), id, h, s)
	if err != nil {
		e.t.Fatalf("join: %v", err)
	}
	return sess, s
}

func v(n int64) *int64 { return &n }

func act(s *Session, typ string, ver int64, move sdk.Move) {
	s.Act(context.Background(), Request{Type: typ, ID: "r", Version: v(ver), Move: move})
}

// twoPlayers creates a room and seats a guest.
func twoPlayers(t *testing.T, e *env) (c Created, host, guest *Session, hs, gs *sub, guestKey string) {
	c, err := e.m.Create(context.Background(), "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	host, hs = e.join(c.Room, Hello{SeatKey: c.SeatKey})
	guest, gs = e.join(c.Room, Hello{})
	w, _ := find(gs.take(), EvWelcome)
	if *w.Seat != 1 || w.SeatKey == "" || w.Version != 1 {
		t.Fatalf("guest welcome = %+v, want seat 1 with a key at version 1", w)
	}
	hs.take()
	return c, host, guest, hs, gs, w.SeatKey
}

func TestSeatsPlayAndViews(t *testing.T) {
	e := newEnv(t)
	c, host, guest, hs, gs, _ := twoPlayers(t, e)
	if !ValidID(c.Room) || len(c.SeatKey) != 43 {
		t.Errorf("room %q key %q: want a 128-bit ID and a 256-bit key", c.Room, c.SeatKey)
	}
	_, ws := e.join(c.Room, Hello{})
	w := ws.last(t)
	if w.Type != EvPresence || w.Presence.Spectators != 1 {
		t.Errorf("spectator's last event %+v, want presence with 1 spectator", w)
	}
	act(host, TypeMove, 1, "b2")
	hev := hs.take()
	mv, ok := find(hev, EvMove)
	if !ok || mv.Version != 2 || mv.Move != "b2" || mv.Played == nil || mv.View.History != nil || len(mv.View.Legal) != 0 {
		t.Errorf("host's move event %+v: want version 2, played, no history, no legal moves (not to move)", mv)
	}
	if a, _ := find(hev, EvAck); a.ID != "r" || a.Version != 2 {
		t.Errorf("host ack %+v", a)
	}
	gmv, _ := find(gs.take(), EvMove)
	if len(gmv.View.Legal) != 8 {
		t.Errorf("guest (to move) got %d legal moves, want 8", len(gmv.View.Legal))
	}
	// Stale: the host answers version 1 again with another move.
	act(host, TypeMove, 1, "a1")
	if r := hs.last(t); r.Type != EvRefused || r.Code != "stale" || r.Version != 2 {
		t.Errorf("stale move answered %+v", r)
	}
	// Duplicate: the same move resent is acknowledged, not applied twice.
	act(host, TypeMove, 1, "b2")
	if r := hs.last(t); r.Type != EvAck || !r.Duplicate || r.Version != 2 {
		t.Errorf("duplicate move answered %+v", r)
	}
	act(guest, TypeMove, 2, "b2")
	if r := gs.last(t); r.Type != EvRefused || r.Code != sdk.CodeIllegalMove {
		t.Errorf("illegal move answered %+v", r)
	}
	spect, ss := e.join(c.Room, Hello{})
	ss.take()
	act(spect, TypeMove, 2, "a1")
	if r := ss.last(t); r.Type != EvRefused || r.Code != "spectator" {
		t.Errorf("spectator's move answered %+v", r)
	}
}

func TestPausedAndReplaced(t *testing.T) {
	e := newEnv(t)
	c, host, guest, hs, _, gkey := twoPlayers(t, e)
	guest.Leave()
	if p := hs.last(t); p.Type != EvPresence || p.Presence.Seats[1].Connected {
		t.Errorf("after the guest left the host got %+v", p)
	}
	act(host, TypeMove, 1, "b2")
	if r := hs.last(t); r.Code != "paused" {
		t.Errorf("move while the guest is away: %+v, want paused", r)
	}
	_, g2 := e.join(c.Room, Hello{SeatKey: gkey, Version: v(1)})
	if w, _ := find(g2.take(), EvWelcome); *w.Seat != 1 || w.Resync != "events" || w.SeatKey != "" {
		t.Errorf("guest's return %+v: want seat 1, nothing missed, no new key", w)
	}
	_, g3 := e.join(c.Room, Hello{SeatKey: gkey})
	g3.take()
	g2.mu.Lock()
	closed, evs := g2.closed, g2.events
	g2.mu.Unlock()
	if closed != CloseReplaced || evs[len(evs)-1].Type != EvReplaced {
		t.Errorf("the replaced connection got close %d and %+v", closed, evs)
	}
	act(host, TypeMove, 1, "b2")
	if r := hs.last(t); r.Type != EvAck {
		t.Errorf("move with everyone back: %+v", r)
	}
	if _, err := e.m.Join(context.Background(), c.Room, Hello{SeatKey: "forged"}, &sub{}); !errors.Is(err, ErrBadKey) {
		t.Errorf("forged key: %v", err)
	}
}

func TestNewRoundConsent(t *testing.T) {
	e := newEnv(t)
	_, host, guest, hs, gs, _ := twoPlayers(t, e)
	act(host, TypeMove, 1, "b2")
	act(host, TypeNewRound, 2, "")
	if ev, _ := find(gs.take(), EvRequest); ev.Version != 3 || ev.NewRound == nil || ev.NewRound.By != 0 {
		t.Errorf("request event %+v", ev)
	}
	act(guest, TypeDecline, 3, "")
	hs.take()
	if ev, _ := find(gs.take(), EvDecline); ev.Version != 4 {
		t.Errorf("decline event %+v", ev)
	}
	act(guest, TypeMove, 4, "a1") // the declined round goes on
	if r := gs.last(t); r.Type != EvAck || r.Version != 5 {
		t.Errorf("move after decline %+v", r)
	}
	act(guest, TypeNewRound, 5, "")
	act(guest, TypeWithdraw, 6, "")
	act(host, TypeNewRound, 7, "")
	act(host, TypeAccept, 8, "")
	if r := hs.last(t); r.Code != "already_accepted" {
		t.Errorf("requester accepting its own request: %+v", r)
	}
	act(guest, TypeAccept, 8, "")
	ev, ok := find(gs.take(), EvRound)
	if !ok || ev.Round != 2 || ev.Version != 9 || ev.View.Ply != 0 {
		t.Fatalf("new round event %+v", ev)
	}
	// Colours stay: the host (seat 0) moves first again.
	act(host, TypeMove, 9, "c3")
	if r := hs.last(t); r.Type != EvAck {
		t.Errorf("host's first move of round 2: %+v", r)
	}
	act(guest, TypeResign, 10, "")
	mv, _ := find(hs.take(), EvMove)
	if mv.View.Status != sdk.Over || mv.View.Result == nil || mv.Move != sdk.Resign {
		t.Errorf("resign event %+v", mv)
	}
}

func TestHostAloneStartsNewRound(t *testing.T) {
	e := newEnv(t)
	c, _ := e.m.Create(context.Background(), "tictactoe", nil)
	host, hs := e.join(c.Room, Hello{SeatKey: c.SeatKey})
	hs.take()
	act(host, TypeMove, 0, "b2")
	if r := hs.last(t); r.Code != "waiting" {
		t.Errorf("move before the guest came: %+v", r)
	}
	act(host, TypeNewRound, 0, "")
	if ev, ok := find(hs.take(), EvRound); !ok || ev.Round != 2 {
		t.Errorf("host alone: %+v, want a new round at once", ev)
	}
}

// TestRestartReplaysLog: a new manager on the same file rebuilds the room
// from its log, seats and keys included.
func TestRestartReplaysLog(t *testing.T) {
	e := newEnv(t)
	c, host, guest, _, _, gkey := twoPlayers(t, e)
	act(host, TypeMove, 1, "b2")
	act(guest, TypeMove, 2, "a1")
	act(host, TypeNewRound, 3, "")
	e.restart()
	_, hs := e.join(c.Room, Hello{SeatKey: c.SeatKey, Version: v(2)})
	evs := hs.take()
	w := evs[0]
	if w.Type != EvWelcome || w.Version != 4 || *w.Seat != 0 || w.NewRound == nil || w.Resync != "events" {
		t.Fatalf("welcome after restart %+v", w)
	}
	if evs[1].Type != EvMove || evs[1].Move != "a1" || evs[1].View == nil || evs[2].Type != EvRequest {
		t.Errorf("missed events after restart %+v", evs[1:])
	}
	_, gs := e.join(c.Room, Hello{SeatKey: gkey})
	w = gs.take()[0]
	if *w.Seat != 1 || w.Resync != "full" || len(w.View.History) != 2 || len(w.View.Legal) != 0 {
		t.Errorf("guest's full resync %+v", w)
	}
}

// refusing replays like a newer plugin that no longer accepts old moves.
type refusing struct{ variants }

func (refusing) Play(context.Context, string, sdk.State, sdk.Seat, sdk.Move) (sdk.State, sdk.View, error) {
	return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadState, "state version 1 is no longer supported")
}

func TestBrokenLog(t *testing.T) {
	e := newEnv(t)
	c, host, _, _, _, _ := twoPlayers(t, e)
	act(host, TypeMove, 1, "b2")
	e.rules = refusing{ttt}
	e.restart()
	e.m.cfg.RulesVersion = func(sdk.Description) string { return "2" }
	host, hs := e.join(c.Room, Hello{SeatKey: c.SeatKey})
	w := hs.take()[0]
	if w.Broken == nil || w.Broken.At != 2 || w.Broken.Code != "rules_changed" {
		t.Fatalf("welcome of a room that no longer replays: %+v", w)
	}
	act(host, TypeMove, 2, "a1")
	if r := hs.last(t); r.Code != "room_broken" {
		t.Errorf("move in a broken room: %+v", r)
	}
}

func TestExpiry(t *testing.T) {
	const ttl = 7 * 24 * time.Hour
	e := newEnv(t)
	ctx := context.Background()
	old, _ := e.m.Create(ctx, "tictactoe", nil)
	active, _, _, _, _, _ := twoPlayers(t, e)
	e.clock.Add(ttl - time.Second)
	// An action resets the clock of one room.
	sess, s := e.join(active.Room, Hello{SeatKey: active.SeatKey})
	act(sess, TypeMove, 1, "b2")
	sess.Leave()
	if r, _ := find(s.take(), EvAck); r.Version != 2 {
		t.Fatal("the move was not acknowledged")
	}
	if n, err := e.m.Sweep(ctx); n != 0 || err != nil {
		t.Errorf("sweep at 7d-1s purged %d (%v), want none", n, err)
	}
	if _, err := e.m.Open(ctx, old.Room); err != nil {
		t.Errorf("room at 7d-1s: %v, want it alive", err)
	}
	e.clock.Add(2 * time.Second)
	if _, err := e.m.Open(ctx, old.Room); !errors.Is(err, ErrNotFound) {
		t.Errorf("room at 7d+1s before the sweep: %v, want not found", err)
	}
	if n, err := e.m.Sweep(ctx); n != 1 || err != nil {
		t.Errorf("sweep at 7d+1s purged %d (%v), want 1", n, err)
	}
	if n, _ := e.m.Sweep(ctx); n != 0 {
		t.Errorf("second sweep purged %d, want 0", n)
	}
	if _, err := e.st.Room(ctx, old.Room); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("purged room still stored: %v", err)
	}
	if _, err := e.m.Open(ctx, active.Room); err != nil {
		t.Errorf("room acted on 2s ago: %v", err)
	}
	if _, err := e.m.Open(ctx, "AAAAAAAAAAAAAAAAAAAAAA"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown room: %v", err)
	}
}

func TestSeatCode(t *testing.T) {
	e := newEnv(t)
	c, host, _, hs, _, _ := twoPlayers(t, e)
	host.Act(context.Background(), Request{Type: TypeSeatCode, ID: "c"})
	code := hs.last(t)
	if code.Type != EvSeatCode || len(code.SeatCode) != 8 || code.Expires == nil {
		t.Fatalf("seat code answer %+v", code)
	}
	if _, err := e.m.Join(context.Background(), c.Room, Hello{Code: "WRONG234"}, &sub{}); !errors.Is(err, ErrBadCode) {
		t.Errorf("wrong code: %v", err)
	}
	movedSess, moved := e.join(c.Room, Hello{Code: code.SeatCode})
	w, _ := find(moved.take(), EvWelcome)
	if *w.Seat != 0 || w.SeatKey == "" || w.SeatKey == c.SeatKey {
		t.Errorf("welcome on the new device %+v: want seat 0 and a new key", w)
	}
	if hs.closed != CloseReplaced {
		t.Errorf("the old device was not told (close %d)", hs.closed)
	}
	if _, err := e.m.Join(context.Background(), c.Room, Hello{SeatKey: c.SeatKey}, &sub{}); !errors.Is(err, ErrBadKey) {
		t.Errorf("the old key after the move: %v, want ErrBadKey", err)
	}
	if _, err := e.m.Join(context.Background(), c.Room, Hello{Code: code.SeatCode}, &sub{}); !errors.Is(err, ErrBadCode) {
		t.Errorf("the code used twice: %v, want ErrBadCode", err)
	}
	for range 5 {
		e.m.Join(context.Background(), c.Room, Hello{Code: "WRONG234"}, &sub{})
	}
	if _, err := e.m.Join(context.Background(), c.Room, Hello{Code: "WRONG234"}, &sub{}); !errors.Is(err, ErrTooManyAttempts) {
		t.Errorf("after many wrong codes: %v, want ErrTooManyAttempts", err)
	}
	// Wrong codes (from five addresses, or fifty: the room does not
	// know) never block a valid one: it is checked first.
	movedSess.Act(context.Background(), Request{Type: TypeSeatCode, ID: "d"})
	again := moved.last(t)
	if again.Type != EvSeatCode {
		t.Fatalf("a new seat code: %+v", again)
	}
	_, third := e.join(c.Room, Hello{Code: again.SeatCode})
	if w, _ := find(third.take(), EvWelcome); w.Seat == nil || *w.Seat != 0 {
		t.Errorf("a valid code after the room's wrong ones: %+v, want seat 0", w)
	}
}

// failing is a store whose appends fail after they are attempted.
type failing struct {
	store.Store
	fail bool
}

func (f *failing) Append(ctx context.Context, a store.Action) error {
	if f.fail {
		return errors.New("disk full")
	}
	return f.Store.Append(ctx, a)
}

// TestNothingBroadcastUnlessStored: an action the store does not commit is
// refused, and nobody hears of it.
func TestNothingBroadcastUnlessStored(t *testing.T) {
	e := newEnv(t)
	fs := &failing{Store: e.st}
	e.m = New(Config{Store: fs, Rules: ttt, Now: e.clock.Now})
	_, host, _, hs, gs, _ := twoPlayers(t, e)
	fs.fail = true
	act(host, TypeMove, 1, "b2")
	if r := hs.last(t); r.Type != EvRefused || r.Code != "not_stored" || r.Version != 1 {
		t.Errorf("a move the store refused: %+v", r)
	}
	if evs := gs.take(); len(evs) != 0 {
		t.Errorf("the guest heard of an unstored move: %+v", evs)
	}
	fs.fail = false
	act(host, TypeMove, 1, "b2")
	if r := hs.last(t); r.Type != EvAck || r.Version != 2 {
		t.Errorf("the same move once the store works: %+v", r)
	}
}

// TestMoveEventsCarryBoardChanges: a live move event's view has no board,
// only the cells the move changed; applied to the board a receiver had,
// they give the board a full view of the new position shows. A catch-up
// (resync "events") ends with a whole view, never with cells.
// With rules that write their answers into the room's spare View
// (host.Reuse), the board built from the changes stays the board shown.
func TestMoveEventsCarryBoardChanges(t *testing.T) {
	t.Run("plain", func(t *testing.T) { testBoardChanges(t, newEnv(t)) })
	t.Run("packed", func(t *testing.T) {
		r := &packingRules{Rules: ttt}
		e := newEnvWith(t, r)
		testBoardChanges(t, e)
		if r.packed == 0 {
			t.Error("no move was answered packed")
		}
	})
	t.Run("reusing", func(t *testing.T) {
		r := &reusingRules{Rules: ttt}
		e := newEnvWith(t, r)
		testBoardChanges(t, e)
		if r.reused == 0 {
			t.Error("no answer was written into a spare View")
		}
	})
}

// The test rules are LeanRules: a change of its signature must not turn
// the lean path off in these tests unnoticed.
var (
	_ LeanRules = (*reusingRules)(nil)
	_ LeanRules = (*packingRules)(nil)
)

// reusingRules is LeanRules answering as host.Reuse does: the board and the
// legal moves are written into the spare's arrays where they fit.
type reusingRules struct {
	Rules
	reused int
}

func (r *reusingRules) PlayFrom(ctx context.Context, variant string, s sdk.State, seat sdk.Seat, m sdk.Move, historyFrom int, spare *sdk.View, _ func(sdk.Seat, []byte)) (sdk.State, sdk.View, Packed, error) {
	st, v, err := r.Play(ctx, variant, s, seat, m)
	if err != nil {
		return st, v, Packed{}, err
	}
	v.History = v.History[min(historyFrom, len(v.History)):]
	if spare != nil && cap(spare.Board) >= len(v.Board) && cap(spare.Legal) >= len(v.Legal) && len(v.Board) > 0 {
		v.Board = append(spare.Board[:0], v.Board...)
		v.Legal = append(spare.Legal[:0], v.Legal...)
		r.reused++
	}
	return st, v, Packed{}, nil
}

// packingRules is LeanRules answering as host.PackedLegal and
// host.PackedBoard do: the legal moves in a LegalList, the board in a
// Board, the View's Legal and Board nil. With legalOnly, the board stays
// plain. With each, it calls each with every move as host.EachLegalJSON
// does;
// eachCalls counts the calls of the lists' Each.
type packingRules struct {
	Rules
	legalOnly bool
	each      bool
	packed    int
	eachCalls int
}

func (r *packingRules) PlayFrom(ctx context.Context, variant string, s sdk.State, seat sdk.Seat, m sdk.Move, historyFrom int, spare *sdk.View, each func(sdk.Seat, []byte)) (sdk.State, sdk.View, Packed, error) {
	st, v, err := r.Play(ctx, variant, s, seat, m)
	if err != nil {
		return st, v, Packed{}, err
	}
	v.History = v.History[min(historyFrom, len(v.History)):]
	if r.each {
		for _, m := range v.Legal {
			js, err := json.Marshal(m)
			if err != nil {
				return nil, sdk.View{}, Packed{}, err
			}
			each(m.Seat, js)
		}
	}
	p := Packed{Legal: countedLegal{sliceLegal(v.Legal), &r.eachCalls}}
	v.Legal = nil
	if !r.legalOnly {
		p.Board = sliceBoard(v.Board)
		v.Board = nil
	}
	r.packed++
	return st, v, p, nil
}

type sliceBoard []sdk.Cell

func (b sliceBoard) Each(f func(at int, c *sdk.Cell) bool) {
	var c sdk.Cell
	for i := range b {
		c = b[i]
		if !f(i, &c) {
			return
		}
	}
}

func (b sliceBoard) Changes(prev Board, f func(at int, c *sdk.Cell)) bool {
	p, ok := prev.(sliceBoard)
	if !ok || len(p) != len(b) {
		return false
	}
	for i := range b {
		if c := b[i]; c != p[i] {
			f(i, &c)
		}
	}
	return true
}

type sliceLegal []sdk.LegalMove

func (l sliceLegal) Len() int { return len(l) }

// countedLegal counts the calls of its Each.
type countedLegal struct {
	sliceLegal
	calls *int
}

func (l countedLegal) Each(f func(m *sdk.LegalMove) bool) {
	*l.calls++
	l.sliceLegal.Each(f)
}

func (l sliceLegal) Each(f func(m *sdk.LegalMove) bool) {
	var m sdk.LegalMove
	for i := range l {
		m = l[i]
		if !f(&m) {
			return
		}
	}
}

// TestPackedEventsAsPlain: a room whose rules keep the legal moves, or
// them and the board, packed sends what one with plain lists sends (each
// seat its own moves and the cells a move changed, in every live event,
// welcome and catch-up), and so does the JSON encoder's fallback when it
// runs; and so does one that encodes the moves as the rules' answer is
// read (LeanRules' each), which then reads the lists less often.
func TestPackedEventsAsPlain(t *testing.T) {
	script := func(t *testing.T, e *env) [][]Event {
		c, host, guest, hs, gs, gkey := twoPlayers(t, e)
		_, ss := e.join(c.Room, Hello{})
		var got [][]Event
		keep := func(subs ...*sub) {
			for _, s := range subs {
				got = append(got, s.take())
			}
		}
		keep(hs, gs, ss)
		ver := int64(1)
		for i, m := range []sdk.Move{"b2", "a1", "c3", "a3"} {
			s := host
			if i%2 == 1 {
				s = guest
			}
			act(s, TypeMove, ver, m)
			ver++
			keep(hs, gs, ss)
		}
		guest.Leave()
		_, g2 := e.join(c.Room, Hello{SeatKey: gkey, Version: v(ver - 2)})
		_, g3 := e.join(c.Room, Hello{SeatKey: gkey})
		keep(hs, g2, g3, ss)
		return got
	}
	blank := func(evs [][]Event) [][]Event {
		for _, list := range evs {
			for i := range list {
				list[i].Room, list[i].SeatKey, list[i].Clock, list[i].Expires = "", "", nil, nil
			}
		}
		return evs
	}
	plain := blank(script(t, newEnv(t)))
	for _, fallback := range []bool{false, true} {
		if fallback {
			known := shapesKnown
			shapesKnown = false // as when a struct the encoder writes has changed
			defer func() { shapesKnown = known }()
		}
		for _, legalOnly := range []bool{true, false} {
			calls := map[bool]int{}
			for _, each := range []bool{false, true} {
				pr := &packingRules{Rules: ttt, legalOnly: legalOnly, each: each}
				e := newEnvWith(t, pr)
				packed := blank(script(t, e))
				if pr.packed == 0 {
					t.Fatal("no move was answered packed")
				}
				if !reflect.DeepEqual(packed, plain) {
					t.Fatalf("fallback %v, legal moves only %v, each %v: packed, the room sent\n%+v\nwith plain views\n%+v", fallback, legalOnly, each, packed, plain)
				}
				calls[each] = pr.eachCalls
			}
			if !fallback && calls[true] >= calls[false] {
				t.Errorf("legal moves only %v: the lists were read %d times with each, %d without; want fewer", legalOnly, calls[true], calls[false])
			}
		}
	}
	legal := 0
	for _, list := range plain {
		for _, ev := range list {
			if ev.View != nil {
				legal += len(ev.View.Legal)
			}
		}
	}
	if legal == 0 {
		t.Fatal("the script sent no legal moves")
	}
}

func testBoardChanges(t *testing.T, e *env) {
	c, host, guest, hs, gs, gkey := twoPlayers(t, e)
	fullBoard := func() []sdk.Cell {
		t.Helper()
		s, sb := e.join(c.Room, Hello{})
		defer s.Leave()
		w, _ := find(sb.take(), EvWelcome)
		if w.Resync != "full" || w.View == nil || w.View.Board == nil {
			t.Fatalf("spectator's welcome %+v: want a full view", w)
		}
		return w.View.Board
	}
	board := slices.Clone(fullBoard())
	ver := int64(1)
	for i, m := range []sdk.Move{"b2", "a1", "c3"} {
		s := host
		if i%2 == 1 {
			s = guest
		}
		act(s, TypeMove, ver, m)
		ver++
		var cells []CellAt
		for _, sb := range []*sub{hs, gs} {
			mv, ok := find(sb.take(), EvMove)
			if !ok || mv.View == nil || mv.View.Board != nil || len(mv.Cells) != 1 {
				t.Fatalf("move %s: event %+v, want a view without board and one changed cell", m, mv)
			}
			cells = mv.Cells
		}
		for _, ch := range cells {
			board[ch.At] = ch.Cell
		}
		if want := fullBoard(); !slices.Equal(board, want) {
			t.Fatalf("after %s: board from changes %v, full view %v", m, board, want)
		}
		hs.take()
		gs.take()
	}
	// The guest was away for the last move: its catch-up ends with the
	// whole board.
	guest.Leave()
	_, g2 := e.join(c.Room, Hello{SeatKey: gkey, Version: v(ver - 1)})
	evs := g2.take()
	if w, _ := find(evs, EvWelcome); w.Resync != "events" {
		t.Fatalf("guest's return %+v: want a catch-up by events", w)
	}
	mv, ok := find(evs, EvMove)
	if !ok || mv.View == nil || !slices.Equal(mv.View.Board, board) || len(mv.Cells) != 0 {
		t.Fatalf("catch-up's move %+v: want the whole board and no cells", mv)
	}
}
