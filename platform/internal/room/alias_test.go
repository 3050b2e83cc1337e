package room

import (
	"context"
	"testing"
	"unsafe"
)

// TestOpenKeepsItsOwnID: Fiber's c.Params is a view of the request buffer,
// reused by the next request on that connection. The socket handshake's
// check opens a room not in memory (after a restart) with such a string;
// the Manager must keep a copy, or the buffer's next request rewrites the
// room's ID: its map key and the room its actions are appended to. (Found
// by the fault test that restarts a killed host: a seat key "did not
// match" and a room's log held another room's moves.)
func TestOpenKeepsItsOwnID(t *testing.T) {
	e := newEnv(t)
	a, err := e.m.Create(context.Background(), "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.m.Create(context.Background(), "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	e.restart()
	buf := []byte(a.Room)
	view := unsafe.String(&buf[0], len(buf)) // what c.Params returns
	r, err := e.m.Open(context.Background(), view)
	if err != nil {
		t.Fatal(err)
	}
	copy(buf, b.Room) // the buffer serves the next request
	if r.ID() != a.Room {
		t.Fatalf("the room opened as %s now calls itself %s", a.Room, r.ID())
	}
	again, err := e.m.Open(context.Background(), a.Room)
	if err != nil {
		t.Fatal(err)
	}
	if again != r {
		t.Fatal("the room loaded once is not found again under its ID")
	}
}
