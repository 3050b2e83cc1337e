package server

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/platform/internal/config"
	"github.com/banmen/banmen/platform/internal/room"
	"github.com/banmen/banmen/platform/internal/store/sqlite"
	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/examples/tictactoe"
)

// TestRoomWatcherCapOnSocket: a spectator past the room's cap gets the
// error too_many_watchers and close 4010; the seats' players still come
// in, and a spectator gets in once another left.
func TestRoomWatcherCapOnSocket(t *testing.T) {
	s := newSite(t, func(c *config.Config) { c.Limits.RoomWatchers = 2 })
	c := s.client()
	cr, _ := c.CreateRoom(ctxT(t), "tictactoe", nil)
	var watchers []*client.Player
	for range 2 {
		w := c.Player(cr.Room, "")
		if err := w.Watch(ctxT(t)); err != nil {
			t.Fatal(err)
		}
		watchers = append(watchers, w)
	}
	extra := c.Player(cr.Room, "")
	err := extra.Watch(ctxT(t))
	if err == nil || !strings.HasPrefix(err.Error(), "too_many_watchers") || client.ClosedWith(err) != protocol.CloseFullWatchers {
		t.Fatalf("a third spectator: %v (close %d), want too_many_watchers and close %d", err, client.ClosedWith(err), protocol.CloseFullWatchers)
	}
	host, guest := c.Player(cr.Room, cr.SeatKey), c.Player(cr.Room, "")
	connect(t, host)
	connect(t, guest)
	if guest.Seat != 1 {
		t.Fatalf("the guest took seat %d with the spectators full, want 1", guest.Seat)
	}
	watchers[0].Close()
	until(t, host, "a spectator gone", func(ev client.RoomEvent) bool {
		return ev.Type == protocol.EvPresence && ev.Presence.Spectators == 1
	})
	if err := extra.Watch(ctxT(t)); err != nil {
		t.Fatalf("a spectator once one left: %v", err)
	}
}

// resignable is tictactoe with resignation, for a win to claim.
type resignable struct{ tictactoe.Variant }

func (resignable) Describe() sdk.Description {
	d := tictactoe.Variant{}.Describe()
	d.Resign = true
	return d
}

// TestRoomClaimWinOnSocket: through real sockets, the host sees the guest
// gone once the server's delay is over (not before), claims the win, and
// every connection learns the round ended with the host the winner.
func TestRoomClaimWinOnSocket(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)}
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v := resignable{}
	rooms := room.New(room.Config{Store: st, Rules: inProcess{v}, Now: clock.Now, GoneAfter: 40 * time.Second})
	app := New(Deps{Games: fakeGames{ds: []sdk.Description{v.Describe()}}, Config: config.Default(), Rooms: rooms})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	defer app.ShutdownWithTimeout(5 * time.Second)
	c := client.New("http://"+ln.Addr().String(), nil)
	cr, err := c.CreateRoom(ctxT(t), "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	host, guest, watcher := c.Player(cr.Room, cr.SeatKey), c.Player(cr.Room, ""), c.Player(cr.Room, "")
	connect(t, host)
	connect(t, guest)
	if err := watcher.Watch(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	until(t, host, "guest joined", typ("join"))
	do(t, host, "move", "b2")
	guest.Close()
	until(t, host, "the guest away", func(ev client.RoomEvent) bool {
		return ev.Type == protocol.EvPresence && !ev.Presence.Seats[1].Connected
	})
	clock.Add(39 * time.Second)
	rooms.Tick()
	refusedWith(t, host, "claimWin", "", "not_gone")
	clock.Add(time.Second)
	rooms.Tick()
	until(t, host, "the guest gone", func(ev client.RoomEvent) bool {
		return ev.Type == protocol.EvPresence && ev.Presence.Seats[1].Gone
	})
	refusedWith(t, watcher, "claimWin", "", "spectator")
	do(t, host, "claimWin", "")
	if r := host.View.Result; host.View.Status != sdk.Over || r == nil || len(r.Winners) != 1 || r.Winners[0] != 0 {
		t.Fatalf("the host's view after the claim: %s %+v, want over, won by seat 0", host.View.Status, r)
	}
	ev := until(t, watcher, "the claim", typ("move"))
	for ev.Move != sdk.Resign {
		ev = until(t, watcher, "the claim", typ("move"))
	}
	if !ev.Claimed || *ev.Seat != 1 || ev.View == nil || ev.View.Result == nil || ev.View.Result.Winners[0] != 0 {
		t.Fatalf("the spectator got %+v, want seat 1's resignation, claimed, won by seat 0", ev)
	}
}
