package main

import (
	"context"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/sdk"
)

// TestRoomWithRealPlugin plays a whole online game through the real host:
// the room socket, the rules plugin process and the SQLite store under the
// data directory; then a restarted host on the same data directory rebuilds
// the room from its log.
func TestRoomWithRealPlugin(t *testing.T) {
	data := t.TempDir()
	h := startHost(t, "-data_dir", data)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(h.url, nil)
	cr, err := c.CreateRoom(ctx, "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	x, o := c.Player(cr.Room, cr.SeatKey), c.Player(cr.Room, "")
	if err := x.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if err := o.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	// X wins on the top row: a3 b3 c3 against b2 c1.
	moves := []sdk.Move{"a3", "b2", "b3", "c1", "c3"}
	players := []*client.Player{x, o}
	for i, m := range moves {
		p, other := players[i%2], players[1-i%2]
		for p.Version < other.Version { // catch up on the other's move (or the guest's arrival)
			if _, err := p.Next(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := p.Do(ctx, "move", m); err != nil {
			t.Fatalf("move %d %s: %v", i, m, err)
		}
	}
	if x.View.Status != sdk.Over || x.View.Result == nil || len(x.View.Result.Winners) != 1 || x.View.Result.Winners[0] != 0 {
		t.Fatalf("after X's three in a row: %+v", x.View)
	}
	final := x.Version
	x.Close()
	o.Close()
	h.stop(t)

	h = startHost(t, "-data_dir", data)
	c = client.New(h.url, nil)
	again := c.Player(cr.Room, cr.SeatKey)
	if err := again.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if again.Version != final || len(again.View.History) != len(moves) || again.View.Status != sdk.Over {
		t.Errorf("after a restart: version %d (want %d), %d moves, status %s", again.Version, final, len(again.View.History), again.View.Status)
	}
}
