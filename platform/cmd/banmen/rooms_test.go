package main

import (
	"context"
	"slices"
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
	// A newcomer's snapshot carries the whole History, although the room
	// asked the plugin for each move's entry only (host.HistoryFrom).
	watcher := c.Player(cr.Room, "")
	if err := watcher.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if got := playedMoves(watcher.View.History); !slices.Equal(got, moves) {
		t.Errorf("a spectator's snapshot has the moves %v, want %v", got, moves)
	}
	watcher.Close()
	x.Close()
	o.Close()
	h.stop(t)

	h = startHost(t, "-data_dir", data)
	c = client.New(h.url, nil)
	again := c.Player(cr.Room, cr.SeatKey)
	if err := again.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if got := playedMoves(again.View.History); again.Version != final || !slices.Equal(got, moves) || again.View.Status != sdk.Over {
		t.Errorf("after a restart: version %d (want %d), moves %v (want %v), status %s", again.Version, final, got, moves, again.View.Status)
	}
}

func playedMoves(h []sdk.PlayedMove) []sdk.Move {
	out := make([]sdk.Move, len(h))
	for i, p := range h {
		out[i] = p.Move
	}
	return out
}
