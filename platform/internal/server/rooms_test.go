package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/platform/internal/config"
	"github.com/banmen/banmen/platform/internal/room"
	"github.com/banmen/banmen/platform/internal/store/sqlite"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/examples/tictactoe"
	"github.com/fasthttp/websocket"
)

// These tests run the room protocol over real sockets on loopback, with the
// tic-tac-toe rules in-process and a real SQLite store.

// inProcess runs a variant's rules in this process.
type inProcess struct{ v sdk.Variant }

func (r inProcess) Describe(id string) (sdk.Description, bool) {
	d := r.v.Describe()
	return d, id == d.ID
}

func (r inProcess) Start(_ context.Context, req room.StartRequest) (sdk.State, sdk.View, error) {
	return r.v.Start(req.Options)
}

func (r inProcess) Play(_ context.Context, req room.PlayRequest) (sdk.State, sdk.View, error) {
	st, v, err := r.v.Play(req.State, req.Seat, req.Move)
	v.History = v.History[min(req.HistoryFrom, len(v.History)):]
	return st, v, err
}

func (r inProcess) Rewind(_ context.Context, req room.RewindRequest) (sdk.View, error) {
	rw, ok := r.v.(sdk.Rewinder)
	if !ok {
		return sdk.View{}, sdk.Errorf(sdk.CodeUnsupported, "no rewind")
	}
	_, v, err := rw.Rewind(req.State, req.Ply)
	return v, err
}

func (r inProcess) Export(_ context.Context, req room.ExportRequest) (string, error) {
	return r.v.Export(req.State, req.Format)
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// site is a host serving rooms on a loopback port.
type site struct {
	t     *testing.T
	db    string
	clock *fakeClock
	cfg   config.Config
	url   string
	rooms *room.Manager
	stop  func()
}

func newSite(t *testing.T, tweak func(*config.Config)) *site {
	cfg := config.Default()
	cfg.Limits.SocketBurst, cfg.Limits.SocketRate = 20, 5
	if tweak != nil {
		tweak(&cfg)
	}
	s := &site{t: t, db: filepath.Join(t.TempDir(), "rooms.db"), cfg: cfg,
		clock: &fakeClock{t: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)}}
	s.start()
	t.Cleanup(func() { s.stop() })
	return s
}

// start runs a host process on the site's database.
func (s *site) start() {
	st, err := sqlite.Open(s.db)
	if err != nil {
		s.t.Fatal(err)
	}
	s.rooms = room.New(room.Config{Store: st, Rules: inProcess{tictactoe.Variant{}}, Now: s.clock.Now, TTL: s.cfg.Limits.RoomTTL,
		MaxWatchers: s.cfg.Limits.RoomWatchers})
	games := fakeGames{ds: []sdk.Description{tictactoe.Variant{}.Describe()}}
	app := New(Deps{Games: games, Config: s.cfg, Rooms: s.rooms})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	s.url = "http://" + ln.Addr().String()
	served := make(chan struct{})
	go func() { app.Listener(ln); close(served) }()
	var once sync.Once
	s.stop = func() {
		once.Do(func() {
			app.ShutdownWithTimeout(5 * time.Second)
			<-served
			st.Close()
		})
	}
}

func (s *site) restart() {
	s.stop()
	s.start()
}

func (s *site) client() *client.Client { return client.New(s.url, nil) }

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func connect(t *testing.T, p *client.Player) {
	t.Helper()
	if err := p.Connect(ctxT(t)); err != nil {
		t.Fatalf("connect: %v", err)
	}
}

// until reads p's events until one satisfies ok.
func until(t *testing.T, p *client.Player, what string, ok func(client.RoomEvent) bool) client.RoomEvent {
	t.Helper()
	for {
		ev, err := p.Next(ctxT(t))
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok(ev) {
			return ev
		}
	}
}

func typ(ty string) func(client.RoomEvent) bool {
	return func(ev client.RoomEvent) bool { return ev.Type == ty }
}

func do(t *testing.T, p *client.Player, ty string, m sdk.Move) client.RoomEvent {
	t.Helper()
	ev, err := p.Do(ctxT(t), ty, m)
	if err != nil {
		t.Fatalf("%s %s by seat %d at version %d: %v", ty, m, p.Seat, p.Version, err)
	}
	return ev
}

func refusedWith(t *testing.T, p *client.Player, ty string, m sdk.Move, code string) {
	t.Helper()
	_, err := p.Do(ctxT(t), ty, m)
	if !client.IsCode(err, code) {
		t.Fatalf("%s %s by seat %d: %v, want refused with %s", ty, m, p.Seat, err, code)
	}
}

// closedWith reads until the connection ends and checks its close code.
func closedWith(t *testing.T, p *client.Player, code int) {
	t.Helper()
	for {
		_, err := p.Next(ctxT(t))
		if err != nil {
			if got := client.ClosedWith(err); got != code {
				t.Fatalf("connection ended with %v (code %d), want close %d", err, got, code)
			}
			return
		}
	}
}

func TestRoomGameOverSockets(t *testing.T) {
	s := newSite(t, nil)
	c := s.client()
	ctx := ctxT(t)
	cr, err := c.CreateRoom(ctx, "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	if cr.Seat != 0 || !strings.HasSuffix(cr.Invite, "/en/tictactoe/room/"+cr.Room) || len(cr.SeatKey) < 43 {
		t.Fatalf("created %+v", cr)
	}
	host := c.Player(cr.Room, cr.SeatKey)
	connect(t, host)
	guest := c.Player(cr.Room, "")
	connect(t, guest)
	if guest.Seat != 1 || guest.SeatKey == "" || guest.Version != 1 {
		t.Fatalf("guest seat %d key? %v version %d: want seat 1 with a key", guest.Seat, guest.SeatKey != "", guest.Version)
	}
	watcher := c.Player(cr.Room, "")
	connect(t, watcher)
	if watcher.Seat != -1 || watcher.SeatKey != "" || watcher.Presence.Spectators != 1 {
		t.Fatalf("third visitor: seat %d, presence %+v; want a spectator", watcher.Seat, watcher.Presence)
	}
	until(t, host, "guest joined", func(ev client.RoomEvent) bool { return ev.Type == "presence" && ev.Presence.Spectators == 1 })

	do(t, host, "move", "b2")
	ev := until(t, guest, "host's move", typ("move"))
	if ev.Move != "b2" || ev.Version != 2 || len(ev.View.Legal) != 8 || ev.View.History != nil {
		t.Errorf("guest got %+v: want b2 at version 2 with its 8 legal moves and no history", ev)
	}
	refusedWith(t, watcher, "move", "a1", "spectator")
	do(t, guest, "move", "a1")

	// Reload: the host reconnects with its key and last version.
	until(t, host, "guest's move", typ("move"))
	host.Close()
	connect(t, host)
	if host.Seat != 0 || host.Version != 3 || len(host.View.History) != 2 {
		t.Errorf("host after reload: seat %d version %d history %v", host.Seat, host.Version, host.View.History)
	}

	// A second tab of the guest replaces the first.
	tab2 := c.Player(cr.Room, guest.SeatKey)
	connect(t, tab2)
	until(t, guest, "replaced", typ("replaced"))
	closedWith(t, guest, 4001)
	if tab2.Seat != 1 {
		t.Fatalf("second tab seat %d", tab2.Seat)
	}

	// A disconnect pauses the game.
	until(t, host, "presence after the second tab", func(ev client.RoomEvent) bool {
		return ev.Type == "presence" && ev.Presence.Seats[1].Connected
	})
	tab2.Close()
	until(t, host, "guest away", func(ev client.RoomEvent) bool {
		return ev.Type == "presence" && !ev.Presence.Seats[1].Connected
	})
	refusedWith(t, host, "move", "c3", "paused")
	// While the guest is away the host asks for a new round; the guest
	// catches up on it when it comes back.
	do(t, host, "newRound", "")
	connect(t, tab2)
	ev = until(t, tab2, "missed request", typ("request"))
	if tab2.Version != 4 || ev.NewRound == nil || ev.NewRound.By != 0 {
		t.Errorf("after reconnect: version %d, %+v", tab2.Version, ev)
	}
	do(t, tab2, "decline", "")
	until(t, host, "decline", typ("decline"))
	// Declined changes nothing: the round goes on where it was.
	do(t, host, "move", "c3")
	if len(host.View.History) != 3 || host.Round != 1 {
		t.Errorf("after a declined new round: history %v round %d", host.View.History, host.Round)
	}
	until(t, tab2, "host's move", typ("move"))
	do(t, tab2, "resign", "")
	until(t, host, "resignation", typ("move"))
	if host.View.Status != sdk.Over || host.View.Result == nil || host.View.Result.Winners[0] != 0 {
		t.Errorf("after resign: %+v", host.View)
	}
	refusedWith(t, host, "move", "a3", sdk.CodeGameOver)

	do(t, host, "newRound", "")
	until(t, tab2, "request", typ("request"))
	do(t, tab2, "accept", "")
	ev = until(t, host, "new round", typ("round"))
	if ev.Round != 2 || host.View.Ply != 0 || len(host.View.History) != 0 || host.Round != 2 {
		t.Errorf("new round %+v, view %+v", ev, host.View)
	}
	// Colours stay: the host moves first again.
	do(t, host, "move", "a1")
	w := until(t, watcher, "spectator sees the move", func(ev client.RoomEvent) bool { return ev.Type == "move" && ev.Round == 2 })
	if len(w.View.Legal) != 0 {
		t.Errorf("a spectator got legal moves: %v", w.View.Legal)
	}
}

func TestRoomKeys(t *testing.T) {
	s := newSite(t, nil)
	c := s.client()
	ctx := ctxT(t)
	a, _ := c.CreateRoom(ctx, "tictactoe", nil)
	b, _ := c.CreateRoom(ctx, "tictactoe", nil)
	connect(t, c.Player(a.Room, ""))
	for name, key := range map[string]string{"forged": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "other room's": b.SeatKey} {
		p := c.Player(a.Room, key)
		err := p.Connect(ctx)
		if client.ClosedWith(err) != 4003 || p.Seat != -1 {
			t.Errorf("%s key: %v, seat %d; want close 4003 and no seat", name, err, p.Seat)
		}
	}
	// No key in a full room: a spectator, nothing more.
	p := c.Player(a.Room, "")
	connect(t, p)
	if p.Seat != -1 || p.SeatKey != "" {
		t.Errorf("no key in a full room: seat %d", p.Seat)
	}
	refusedWith(t, p, "newRound", "", "spectator")
	// An unknown room is refused at the handshake.
	err := c.Player("AAAAAAAAAAAAAAAAAAAAAA", "").Connect(ctx)
	if e, ok := client.AsError(err); !ok || e.Status != http.StatusNotFound {
		t.Errorf("unknown room: %v, want 404", err)
	}
}

// TestRoomWrongKeysRateLimited: after limits.wrong_keys_per_minute wrong
// keys from one address, the next wrong one is told 4029; the right key
// from that address is accepted all the same (behind a proxy every player
// may share it), and an empty seatKey is a wrong key, not "no key".
func TestRoomWrongKeysRateLimited(t *testing.T) {
	s := newSite(t, nil) // the default: 10 a minute
	c := s.client()
	cr, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	// A hello with "seatKey": "" is refused as a wrong key (the first of
	// ten).
	if code := rawHello(t, s.url, cr.Room, `{"type":"hello","seatKey":""}`); code != 4003 {
		t.Errorf("an empty seat key: closed %d, want 4003", code)
	}
	for i := range 9 {
		if err := c.Player(cr.Room, "wrong").Connect(ctxT(t)); client.ClosedWith(err) != 4003 {
			t.Fatalf("wrong key %d: %v", i+2, err)
		}
	}
	if err := c.Player(cr.Room, "wrong").Connect(ctxT(t)); client.ClosedWith(err) != 4029 {
		t.Errorf("the 11th wrong key: %v, want 4029", err)
	}
	p := c.Player(cr.Room, cr.SeatKey)
	if err := p.Connect(ctxT(t)); err != nil || p.Seat != 0 {
		t.Errorf("the right key after 10 wrong ones: %v, seat %d; want seat 0", err, p.Seat)
	}
	p.Close()
}

// rawHello opens a room socket, sends hello and returns the close code.
func rawHello(t *testing.T, url, room, hello string) int {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(url, "http")+"/api/v1/rooms/"+room+"/socket", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.SetReadDeadline(time.Now().Add(30 * time.Second)) // a socket left open (a watcher) fails, not hangs
	ws.WriteMessage(websocket.TextMessage, []byte(hello))
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code
			}
			return 0
		}
	}
}

func TestRoomCreateRateLimited(t *testing.T) {
	s := newSite(t, func(c *config.Config) { c.Limits.RoomsPerMinute = 2 })
	c := s.client()
	for range 2 {
		if _, err := c.CreateRoom(ctxT(t), "tictactoe", nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CreateRoom(ctxT(t), "tictactoe", nil); !client.IsCode(err, "too_many_rooms") {
		t.Errorf("third room in a minute: %v, want too_many_rooms", err)
	}
	if _, err := c.CreateRoom(ctxT(t), "nope", nil); err == nil {
		t.Error("a room of an unknown variant was created")
	}
}

// TestRoomFlood: a flood closes that socket only; another room plays on.
func TestRoomFlood(t *testing.T) {
	s := newSite(t, nil)
	c := s.client()
	ctx := ctxT(t)
	a, _ := c.CreateRoom(ctx, "tictactoe", nil)
	b, _ := c.CreateRoom(ctx, "tictactoe", nil)
	flooder := c.Player(a.Room, a.SeatKey)
	connect(t, flooder)
	bh, bg := c.Player(b.Room, b.SeatKey), c.Player(b.Room, "")
	connect(t, bh)
	connect(t, bg)
	until(t, bh, "guest joined", typ("join"))
	for range 100 {
		if flooder.Send(client.RoomRequest{Type: "ping"}) != nil {
			break
		}
	}
	closedWith(t, flooder, 4008)
	do(t, bh, "move", "b2")
	until(t, bg, "move in the other room", typ("move"))
	do(t, bg, "move", "a1")
}

func TestRoomFrameTooBig(t *testing.T) {
	s := newSite(t, nil)
	c := s.client()
	cr, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	p := c.Player(cr.Room, cr.SeatKey)
	connect(t, p)
	big := `{"type":"move","version":0,"move":"` + strings.Repeat("x", 20<<10) + `"}`
	p.Conn().WriteMessage(websocket.TextMessage, []byte(big))
	closedWith(t, p, 1009)
}

func TestRoomProtocolErrors(t *testing.T) {
	s := newSite(t, nil)
	c := s.client()
	cr, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	p := c.Player(cr.Room, cr.SeatKey)
	connect(t, p)
	p.Conn().WriteMessage(websocket.TextMessage, []byte(`{"type":"move","move":"b2"}`)) // no version
	ev := until(t, p, "error", typ("error"))
	if ev.Code != "bad_request" {
		t.Errorf("error %+v", ev)
	}
	closedWith(t, p, 1008)
}

func TestRoomOrigin(t *testing.T) {
	s := newSite(t, nil)
	c := s.client()
	cr, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	for origin, want := range map[string]int{"http://evil.example": http.StatusForbidden, s.url: 0} {
		p := c.Player(cr.Room, cr.SeatKey)
		p.Header = http.Header{"Origin": {origin}}
		err := p.Connect(ctxT(t))
		e, _ := client.AsError(err)
		switch {
		case want == 0 && err != nil:
			t.Errorf("same-host origin %s: %v", origin, err)
		case want != 0 && (e == nil || e.Status != want):
			t.Errorf("origin %s: %v, want %d", origin, err, want)
		}
		p.Close()
	}
	s2 := newSite(t, func(c *config.Config) { c.Origins = []string{"https://banmen.example"} })
	cr2, _ := s2.client().CreateRoom(ctxT(t), "tictactoe", nil)
	p := s2.client().Player(cr2.Room, cr2.SeatKey)
	p.Header = http.Header{"Origin": {"https://banmen.example"}}
	if err := p.Connect(ctxT(t)); err != nil {
		t.Errorf("allowed origin: %v", err)
	}
}

// TestRoomRestart: a new host on the same database rebuilds the room from
// its log; players reconnect and go on.
func TestRoomRestart(t *testing.T) {
	s := newSite(t, nil)
	c := s.client()
	cr, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	host, guest := c.Player(cr.Room, cr.SeatKey), c.Player(cr.Room, "")
	connect(t, host)
	connect(t, guest)
	until(t, host, "guest joined", typ("join"))
	do(t, host, "move", "b2")
	until(t, guest, "move", typ("move"))
	do(t, guest, "move", "a1")
	until(t, host, "move", typ("move"))
	s.restart()
	c = s.client()
	host2 := c.Player(cr.Room, cr.SeatKey)
	connect(t, host2)
	guest2 := c.Player(cr.Room, guest.SeatKey)
	guest2.Version = guest.Version // a client that remembers its version
	connect(t, guest2)
	if host2.Version != 3 || len(host2.View.History) != 2 || host2.View.History[1].Move != "a1" {
		t.Fatalf("after restart: version %d history %v", host2.Version, host2.View.History)
	}
	// The guest was up to date: the rebuilt room knows its events, so it
	// catches up (on nothing) instead of a full resync.
	guest2.View = guest.View
	if guest2.Resync != "events" {
		t.Errorf("an up-to-date guest after the restart got a %q resync, want events", guest2.Resync)
	}
	do(t, host2, "move", "c3")
	until(t, guest2, "move after restart", typ("move"))
	if guest2.Version != host2.Version {
		t.Errorf("versions differ: host %d guest %d", host2.Version, guest2.Version)
	}
}

func TestRoomExpiry(t *testing.T) {
	s := newSite(t, nil)
	c := s.client()
	ttl := s.cfg.Limits.RoomTTL
	idle, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	active, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	s.clock.Add(ttl - time.Second)
	p := c.Player(active.Room, active.SeatKey)
	connect(t, p)
	do(t, p, "newRound", "") // any action resets the clock
	p.Close()
	if _, err := s.rooms.Sweep(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	watcher := c.Player(idle.Room, idle.SeatKey)
	connect(t, watcher) // 7 d − 1 s: alive (and connecting is no action)
	s.clock.Add(2 * time.Second)
	if n, err := s.rooms.Sweep(ctxT(t)); n != 1 || err != nil {
		t.Errorf("sweep at 7 d + 1 s purged %d (%v), want 1", n, err)
	}
	ev := until(t, watcher, "the room's end", typ("error"))
	if ev.Code != "room_not_found" {
		t.Errorf("an open connection of an expired room got %+v", ev)
	}
	closedWith(t, watcher, 4004)
	err := c.Player(idle.Room, idle.SeatKey).Connect(ctxT(t))
	if e, ok := client.AsError(err); !ok || e.Status != http.StatusNotFound {
		t.Errorf("expired room: %v, want 404", err)
	}
	connect(t, c.Player(active.Room, active.SeatKey))
}

func TestRoomSlowClientDropped(t *testing.T) {
	s := newSite(t, func(c *config.Config) {
		c.Limits.SocketQueue = 2
		c.Limits.SocketBurst, c.Limits.SocketRate = 1<<30, 1<<30
	})
	c := s.client()
	cr, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	host := c.Player(cr.Room, cr.SeatKey)
	connect(t, host)
	// A spectator that never reads while many events are sent to it: its
	// socket buffers fill, then its queue, and the server drops it.
	slow := c.Player(cr.Room, "")
	slow.NetDial = func(network, addr string) (net.Conn, error) {
		conn, err := net.Dial(network, addr)
		if err == nil {
			conn.(*net.TCPConn).SetReadBuffer(1024)
		}
		return conn, err
	}
	connect(t, slow) // takes seat 1, reads nothing from now on
	until(t, host, "guest joined", typ("join"))
	var i int
	defer func() { t.Logf("dropped after %d actions", 2*i) }()
	for i = 0; ; i++ {
		ev, err := host.Do(ctxT(t), "newRound", "")
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type == "ack" {
			if _, err := host.Do(ctxT(t), "withdraw", ""); err != nil {
				t.Fatal(err)
			}
		}
		if !host.Presence.Seats[1].Connected {
			break
		}
		if i > 20000 {
			t.Fatal("the slow client was never dropped")
		}
	}
}

// TestRoomDeadPeer: a peer that stops answering pings is dropped, and the
// others see it go.
func TestRoomDeadPeer(t *testing.T) {
	s := newSite(t, func(c *config.Config) { c.Limits.PingInterval = 100 * time.Millisecond })
	c := s.client()
	cr, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	host, dead := c.Player(cr.Room, cr.SeatKey), c.Player(cr.Room, "")
	connect(t, host)
	connect(t, dead) // never reads again, so never answers a ping
	until(t, host, "guest joined", typ("join"))
	until(t, host, "guest gone", func(ev client.RoomEvent) bool {
		return ev.Type == "presence" && ev.Presence.Seats[1].Taken && !ev.Presence.Seats[1].Connected
	})
}

// TestRoomShutdown: a host shutting down closes room sockets with 1001.
func TestRoomShutdown(t *testing.T) {
	s := newSite(t, nil)
	c := s.client()
	cr, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	p := c.Player(cr.Room, cr.SeatKey)
	connect(t, p)
	stop := s.stop
	go stop()
	closedWith(t, p, 1001)
}

// TestRoomSameVersionOneWins: both seats act at the same version; exactly
// one action is applied, the other is refused as stale.
func TestRoomSameVersionOneWins(t *testing.T) {
	s := newSite(t, nil)
	c := s.client()
	cr, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	host, guest := c.Player(cr.Room, cr.SeatKey), c.Player(cr.Room, "")
	connect(t, host)
	connect(t, guest)
	until(t, host, "guest joined", typ("join"))
	for round := 0; round < 10; round++ {
		hid, err1 := host.Act("newRound", "")
		gid, err2 := guest.Act("newRound", "")
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		_, herr := host.Await(ctxT(t), hid)
		_, gerr := guest.Await(ctxT(t), gid)
		switch {
		case herr == nil && gerr == nil:
			t.Fatal("both requests at the same version were applied")
		case herr != nil && gerr != nil:
			t.Fatalf("neither was applied: %v, %v", herr, gerr)
		}
		winner, loser, lerr := host, guest, gerr
		if herr != nil {
			winner, loser, lerr = guest, host, herr
		}
		if !client.IsCode(lerr, "stale") {
			t.Fatalf("the loser got %v, want stale", lerr)
		}
		// The winner's request reached the loser before its refusal.
		if loser.NewRound == nil || loser.NewRound.By != winner.Seat {
			t.Fatalf("the loser does not see the winner's request: %+v", loser.NewRound)
		}
		do(t, winner, "withdraw", "")
		until(t, loser, "withdrawal", typ("withdraw"))
		if host.Version != guest.Version {
			t.Fatalf("versions differ: %d and %d", host.Version, guest.Version)
		}
	}
}

// TestRoomSeatCode: a seat moves to another device with a one-time code.
func TestRoomSeatCode(t *testing.T) {
	s := newSite(t, nil)
	c := s.client()
	cr, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	phone := c.Player(cr.Room, cr.SeatKey)
	connect(t, phone)
	ev := do(t, phone, "seatCode", "")
	if len(ev.SeatCode) != 8 || ev.Expires == nil {
		t.Fatalf("seat code %+v", ev)
	}
	laptop := c.Player(cr.Room, "")
	if err := laptop.ConnectWithCode(ctxT(t), ev.SeatCode[:4]+"-"+strings.ToLower(ev.SeatCode[4:])); err != nil {
		t.Fatal(err)
	}
	if laptop.Seat != 0 || laptop.SeatKey == "" || laptop.SeatKey == cr.SeatKey {
		t.Errorf("laptop: seat %d, new key %v", laptop.Seat, laptop.SeatKey != cr.SeatKey)
	}
	r := until(t, phone, "replaced", typ("replaced"))
	if r.Reason != "moved" {
		t.Errorf("the phone was told %+v", r)
	}
	closedWith(t, phone, 4001)
	if err := c.Player(cr.Room, cr.SeatKey).Connect(ctxT(t)); client.ClosedWith(err) != 4003 {
		t.Errorf("the old key after the move: %v, want 4003", err)
	}
	if err := c.Player(cr.Room, "").ConnectWithCode(ctxT(t), ev.SeatCode); client.ClosedWith(err) != 4003 {
		t.Errorf("the code used twice: %v, want 4003", err)
	}
}
