package server

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/platform/internal/config"
	"github.com/banmen/banmen/platform/protocol"
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
