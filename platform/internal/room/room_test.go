package room

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/internal/store/sqlite"
	"github.com/banmen/banmen/platform/protocol"
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

func (v variants) Start(_ context.Context, req StartRequest) (sdk.State, sdk.View, error) {
	return v[req.Variant].Start(req.Options)
}

func (v variants) Play(_ context.Context, req PlayRequest) (sdk.State, sdk.View, error) {
	st, view, err := v[req.Variant].Play(req.State, req.Seat, req.Move)
	view.History = view.History[min(req.HistoryFrom, len(view.History)):]
	return st, view, err
}

func (v variants) Rewind(_ context.Context, req RewindRequest) (sdk.View, error) {
	rw, ok := v[req.Variant].(sdk.Rewinder)
	if !ok {
		return sdk.View{}, sdk.Errorf(sdk.CodeUnsupported, "no rewind")
	}
	_, view, err := rw.Rewind(req.State, req.Ply)
	return view, err
}

func (v variants) Export(_ context.Context, req ExportRequest) (string, error) {
	return v[req.Variant].Export(req.State, req.Format)
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
	events []protocol.Event
	closed int
}

func (s *sub) Send(b []byte) bool {
	var ev protocol.Event
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
func (s *sub) take() []protocol.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.events
	s.events = nil
	return out
}

func (s *sub) last(t *testing.T) protocol.Event {
	t.Helper()
	evs := s.take()
	if len(evs) == 0 {
		t.Fatal("nothing sent")
	}
	return evs[len(evs)-1]
}

// find returns the first event of type typ.
func find(evs []protocol.Event, typ string) (protocol.Event, bool) {
	for _, e := range evs {
		if e.Type == typ {
			return e, true
		}
	}
	return protocol.Event{}, false
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
	// Presence goes out as it happens here (the clock stands still):
	// coalescing has its own tests (limits_test.go).
	e.m = New(Config{Store: st, Rules: e.rules, Now: e.clock.Now, TTL: 7 * 24 * time.Hour, PresenceEvery: -1})
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
	s.Act(context.Background(), protocol.Request{Type: typ, ID: "r", Version: v(ver), Move: move})
}

// twoPlayers creates a room and seats a guest.
func twoPlayers(t *testing.T, e *env) (c Created, host, guest *Session, hs, gs *sub, guestKey string) {
	c, err := e.m.Create(context.Background(), "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	host, hs = e.join(c.Room, Hello{SeatKey: c.SeatKey})
	guest, gs = e.join(c.Room, Hello{})
	w, _ := find(gs.take(), protocol.EvWelcome)
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
	if w.Type != protocol.EvPresence || w.Presence.Spectators != 1 {
		t.Errorf("spectator's last event %+v, want presence with 1 spectator", w)
	}
	act(host, protocol.TypeMove, 1, "b2")
	hev := hs.take()
	mv, ok := find(hev, protocol.EvMove)
	if !ok || mv.Version != 2 || mv.Move != "b2" || mv.Played == nil || mv.View.History != nil || len(mv.View.Legal) != 0 {
		t.Errorf("host's move event %+v: want version 2, played, no history, no legal moves (not to move)", mv)
	}
	if a, _ := find(hev, protocol.EvAck); a.ID != "r" || a.Version != 2 {
		t.Errorf("host ack %+v", a)
	}
	gmv, _ := find(gs.take(), protocol.EvMove)
	if len(gmv.View.Legal) != 8 {
		t.Errorf("guest (to move) got %d legal moves, want 8", len(gmv.View.Legal))
	}
	// Stale: the host answers version 1 again with another move.
	act(host, protocol.TypeMove, 1, "a1")
	if r := hs.last(t); r.Type != protocol.EvRefused || r.Code != "stale" || r.Version != 2 {
		t.Errorf("stale move answered %+v", r)
	}
	// Duplicate: the same move resent is acknowledged, not applied twice.
	act(host, protocol.TypeMove, 1, "b2")
	if r := hs.last(t); r.Type != protocol.EvAck || !r.Duplicate || r.Version != 2 {
		t.Errorf("duplicate move answered %+v", r)
	}
	act(guest, protocol.TypeMove, 2, "b2")
	if r := gs.last(t); r.Type != protocol.EvRefused || r.Code != sdk.CodeIllegalMove {
		t.Errorf("illegal move answered %+v", r)
	}
	spect, ss := e.join(c.Room, Hello{})
	ss.take()
	act(spect, protocol.TypeMove, 2, "a1")
	if r := ss.last(t); r.Type != protocol.EvRefused || r.Code != "spectator" {
		t.Errorf("spectator's move answered %+v", r)
	}
}

func TestPausedAndReplaced(t *testing.T) {
	e := newEnv(t)
	c, host, guest, hs, _, gkey := twoPlayers(t, e)
	guest.Leave()
	if p := hs.last(t); p.Type != protocol.EvPresence || p.Presence.Seats[1].Connected {
		t.Errorf("after the guest left the host got %+v", p)
	}
	act(host, protocol.TypeMove, 1, "b2")
	if r := hs.last(t); r.Code != "paused" {
		t.Errorf("move while the guest is away: %+v, want paused", r)
	}
	_, g2 := e.join(c.Room, Hello{SeatKey: gkey, Version: v(1)})
	if w, _ := find(g2.take(), protocol.EvWelcome); *w.Seat != 1 || w.Resync != "events" || w.SeatKey != "" {
		t.Errorf("guest's return %+v: want seat 1, nothing missed, no new key", w)
	}
	_, g3 := e.join(c.Room, Hello{SeatKey: gkey})
	g3.take()
	g2.mu.Lock()
	closed, evs := g2.closed, g2.events
	g2.mu.Unlock()
	if closed != protocol.CloseReplaced || evs[len(evs)-1].Type != protocol.EvReplaced {
		t.Errorf("the replaced connection got close %d and %+v", closed, evs)
	}
	act(host, protocol.TypeMove, 1, "b2")
	if r := hs.last(t); r.Type != protocol.EvAck {
		t.Errorf("move with everyone back: %+v", r)
	}
	if _, err := e.m.Join(context.Background(), c.Room, Hello{SeatKey: "forged"}, &sub{}); !errors.Is(err, ErrBadKey) {
		t.Errorf("forged key: %v", err)
	}
}

func TestNewRoundConsent(t *testing.T) {
	e := newEnv(t)
	_, host, guest, hs, gs, _ := twoPlayers(t, e)
	act(host, protocol.TypeMove, 1, "b2")
	act(host, protocol.TypeNewRound, 2, "")
	if ev, _ := find(gs.take(), protocol.EvRequest); ev.Version != 3 || ev.NewRound == nil || ev.NewRound.By != 0 {
		t.Errorf("request event %+v", ev)
	}
	act(guest, protocol.TypeDecline, 3, "")
	hs.take()
	if ev, _ := find(gs.take(), protocol.EvDecline); ev.Version != 4 {
		t.Errorf("decline event %+v", ev)
	}
	act(guest, protocol.TypeMove, 4, "a1") // the declined round goes on
	if r := gs.last(t); r.Type != protocol.EvAck || r.Version != 5 {
		t.Errorf("move after decline %+v", r)
	}
	act(guest, protocol.TypeNewRound, 5, "")
	act(guest, protocol.TypeWithdraw, 6, "")
	act(host, protocol.TypeNewRound, 7, "")
	act(host, protocol.TypeAccept, 8, "")
	if r := hs.last(t); r.Code != "already_accepted" {
		t.Errorf("requester accepting its own request: %+v", r)
	}
	act(guest, protocol.TypeAccept, 8, "")
	ev, ok := find(gs.take(), protocol.EvRound)
	if !ok || ev.Round != 2 || ev.Version != 9 || ev.View.Ply != 0 {
		t.Fatalf("new round event %+v", ev)
	}
	// Colours stay: the host (seat 0) moves first again.
	act(host, protocol.TypeMove, 9, "c3")
	if r := hs.last(t); r.Type != protocol.EvAck {
		t.Errorf("host's first move of round 2: %+v", r)
	}
	act(guest, protocol.TypeResign, 10, "")
	mv, _ := find(hs.take(), protocol.EvMove)
	if mv.View.Status != sdk.Over || mv.View.Result == nil || mv.Move != sdk.Resign {
		t.Errorf("resign event %+v", mv)
	}
}

func TestHostAloneStartsNewRound(t *testing.T) {
	e := newEnv(t)
	c, _ := e.m.Create(context.Background(), "tictactoe", nil)
	host, hs := e.join(c.Room, Hello{SeatKey: c.SeatKey})
	hs.take()
	act(host, protocol.TypeMove, 0, "b2")
	if r := hs.last(t); r.Code != "waiting" {
		t.Errorf("move before the guest came: %+v", r)
	}
	act(host, protocol.TypeNewRound, 0, "")
	if ev, ok := find(hs.take(), protocol.EvRound); !ok || ev.Round != 2 {
		t.Errorf("host alone: %+v, want a new round at once", ev)
	}
}

// TestRestartReplaysLog: a new manager on the same file rebuilds the room
// from its log, seats and keys included.
func TestRestartReplaysLog(t *testing.T) {
	e := newEnv(t)
	c, host, guest, _, _, gkey := twoPlayers(t, e)
	act(host, protocol.TypeMove, 1, "b2")
	act(guest, protocol.TypeMove, 2, "a1")
	act(host, protocol.TypeNewRound, 3, "")
	e.restart()
	_, hs := e.join(c.Room, Hello{SeatKey: c.SeatKey, Version: v(2)})
	evs := hs.take()
	w := evs[0]
	if w.Type != protocol.EvWelcome || w.Version != 4 || *w.Seat != 0 || w.NewRound == nil || w.Resync != "events" {
		t.Fatalf("welcome after restart %+v", w)
	}
	if evs[1].Type != protocol.EvMove || evs[1].Move != "a1" || evs[1].View == nil || evs[2].Type != protocol.EvRequest {
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

func (refusing) Play(context.Context, PlayRequest) (sdk.State, sdk.View, error) {
	return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadState, "state version 1 is no longer supported")
}

func TestBrokenLog(t *testing.T) {
	e := newEnv(t)
	c, host, _, _, _, _ := twoPlayers(t, e)
	act(host, protocol.TypeMove, 1, "b2")
	e.rules = refusing{ttt}
	e.restart()
	e.m.cfg.RulesVersion = func(sdk.Description) string { return "2" }
	host, hs := e.join(c.Room, Hello{SeatKey: c.SeatKey})
	w := hs.take()[0]
	if w.Broken == nil || w.Broken.At != 2 || w.Broken.Code != "rules_changed" {
		t.Fatalf("welcome of a room that no longer replays: %+v", w)
	}
	act(host, protocol.TypeMove, 2, "a1")
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
	act(sess, protocol.TypeMove, 1, "b2")
	sess.Leave()
	if r, _ := find(s.take(), protocol.EvAck); r.Version != 2 {
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
	host.Act(context.Background(), protocol.Request{Type: protocol.TypeSeatCode, ID: "c"})
	code := hs.last(t)
	if code.Type != protocol.EvSeatCode || len(code.SeatCode) != 8 || code.Expires == nil {
		t.Fatalf("seat code answer %+v", code)
	}
	if _, err := e.m.Join(context.Background(), c.Room, Hello{Code: "WRONG234"}, &sub{}); !errors.Is(err, ErrBadCode) {
		t.Errorf("wrong code: %v", err)
	}
	movedSess, moved := e.join(c.Room, Hello{Code: code.SeatCode})
	w, _ := find(moved.take(), protocol.EvWelcome)
	if *w.Seat != 0 || w.SeatKey == "" || w.SeatKey == c.SeatKey {
		t.Errorf("welcome on the new device %+v: want seat 0 and a new key", w)
	}
	if hs.closed != protocol.CloseReplaced {
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
	movedSess.Act(context.Background(), protocol.Request{Type: protocol.TypeSeatCode, ID: "d"})
	again := moved.last(t)
	if again.Type != protocol.EvSeatCode {
		t.Fatalf("a new seat code: %+v", again)
	}
	_, third := e.join(c.Room, Hello{Code: again.SeatCode})
	if w, _ := find(third.take(), protocol.EvWelcome); w.Seat == nil || *w.Seat != 0 {
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
	act(host, protocol.TypeMove, 1, "b2")
	if r := hs.last(t); r.Type != protocol.EvRefused || r.Code != "not_stored" || r.Version != 1 {
		t.Errorf("a move the store refused: %+v", r)
	}
	if evs := gs.take(); len(evs) != 0 {
		t.Errorf("the guest heard of an unstored move: %+v", evs)
	}
	fs.fail = false
	act(host, protocol.TypeMove, 1, "b2")
	if r := hs.last(t); r.Type != protocol.EvAck || r.Version != 2 {
		t.Errorf("the same move once the store works: %+v", r)
	}
}

// TestMoveEventsCarryBoardChanges: a live move event's view has no board,
// only the cells the move changed; applied to the board a receiver had,
// they give the board a full view of the new position shows. A catch-up
// (resync "events") ends with a whole view, never with cells.
func TestMoveEventsCarryBoardChanges(t *testing.T) {
	t.Run("plain", func(t *testing.T) { testBoardChanges(t, newEnv(t)) })
}

func testBoardChanges(t *testing.T, e *env) {
	c, host, guest, hs, gs, gkey := twoPlayers(t, e)
	fullBoard := func() []sdk.Cell {
		t.Helper()
		s, sb := e.join(c.Room, Hello{})
		defer s.Leave()
		w, _ := find(sb.take(), protocol.EvWelcome)
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
		act(s, protocol.TypeMove, ver, m)
		ver++
		var cells []protocol.CellAt
		for _, sb := range []*sub{hs, gs} {
			mv, ok := find(sb.take(), protocol.EvMove)
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
	if w, _ := find(evs, protocol.EvWelcome); w.Resync != "events" {
		t.Fatalf("guest's return %+v: want a catch-up by events", w)
	}
	mv, ok := find(evs, protocol.EvMove)
	if !ok || mv.View == nil || !slices.Equal(mv.View.Board, board) || len(mv.Cells) != 0 {
		t.Fatalf("catch-up's move %+v: want the whole board and no cells", mv)
	}
}

// TestExportAndRewind: a room's record and an earlier position come from
// the room's own state through the rules, with the version they show.
func TestExportAndRewind(t *testing.T) {
	e := newEnv(t)
	c, host, guest, _, _, _ := twoPlayers(t, e)
	act(host, protocol.TypeMove, 1, "b2")
	act(guest, protocol.TypeMove, 2, "a1")
	r, err := e.m.Open(context.Background(), c.Room)
	if err != nil {
		t.Fatal(err)
	}
	if text, version, err := r.Export(context.Background(), "moves", ""); err != nil || text != "b2 a1" || version != 3 {
		t.Errorf("export: %q at %d (%v), want \"b2 a1\" at 3", text, version, err)
	}
	if v, version, err := r.Rewind(context.Background(), 1); err != nil || v.Ply != 1 || len(v.History) != 1 || version != 3 {
		t.Errorf("rewind to 1: ply %d, history %v, at %d (%v)", v.Ply, v.History, version, err)
	}
	if _, _, err := r.Rewind(context.Background(), 5); err == nil {
		t.Error("rewind beyond the game: no error")
	}
}
