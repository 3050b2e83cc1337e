package room

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
)

// batchSub is a sub that also takes batches, and records them apart.
type batchSub struct {
	sub
	bmu     sync.Mutex
	batches [][]protocol.Event
}

func (s *batchSub) SendAll(msgs ...[]byte) bool {
	var batch []protocol.Event
	for _, b := range msgs {
		var ev protocol.Event
		if err := json.Unmarshal(b, &ev); err != nil {
			panic(err)
		}
		batch = append(batch, ev)
	}
	s.bmu.Lock()
	s.batches = append(s.batches, batch)
	s.bmu.Unlock()
	return true
}

// TestMoverGetsEventAndAckTogether: the mover's move event and its ack are
// one SendAll (one write on a socket); the other seat gets the event alone.
func TestMoverGetsEventAndAckTogether(t *testing.T) {
	e := newEnv(t)
	c, err := e.m.Create(context.Background(), "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	hs := &batchSub{}
	host, err := e.m.Join(context.Background(), c.Room, Hello{SeatKey: c.SeatKey}, hs)
	if err != nil {
		t.Fatal(err)
	}
	gs := &batchSub{}
	if _, err := e.m.Join(context.Background(), c.Room, Hello{}, gs); err != nil {
		t.Fatal(err)
	}
	hs.take()
	gs.take()
	act(host, protocol.TypeMove, 1, "b2")
	if evs := hs.take(); len(evs) != 0 {
		t.Errorf("the mover got %d single messages (%+v), want none: the event and ack go together", len(evs), evs)
	}
	if len(hs.batches) != 1 || len(hs.batches[0]) != 2 || hs.batches[0][0].Type != protocol.EvMove || hs.batches[0][1].Type != protocol.EvAck ||
		hs.batches[0][1].ID != "r" || hs.batches[0][0].Version != 2 {
		t.Fatalf("the mover's batches = %+v, want one: move event, then its ack", hs.batches)
	}
	if evs := gs.take(); len(evs) != 1 || evs[0].Type != protocol.EvMove || len(evs[0].View.Legal) == 0 {
		t.Errorf("the other seat got %+v, want the move event with its legal moves", evs)
	}
	if len(gs.batches) != 0 {
		t.Errorf("the other seat got batches %+v", gs.batches)
	}
	// A refused move is a single message, as before.
	act(host, protocol.TypeMove, 1, "a1")
	if r := hs.last(t); r.Type != protocol.EvRefused {
		t.Errorf("stale move answered %+v", r)
	}
}

func TestOwnMoves(t *testing.T) {
	a := sdk.LegalMove{Seat: 0, Move: "a"}
	b := sdk.LegalMove{Seat: 1, Move: "b"}
	c := sdk.LegalMove{Seat: 0, Move: "c"}
	all := []sdk.LegalMove{a, c}
	if got := ownMoves(all, 0); len(got) != 2 || &got[0] != &all[0] {
		t.Errorf("every move the seat's: got %v, want the list itself", got)
	}
	mixed := []sdk.LegalMove{a, b, c}
	if got := ownMoves(mixed, 0); !slices.Equal(got, []sdk.LegalMove{a, c}) {
		t.Errorf("seat 0 of a mixed list: %v", got)
	}
	if got := ownMoves(mixed, 1); !slices.Equal(got, []sdk.LegalMove{b}) {
		t.Errorf("seat 1 of a mixed list: %v", got)
	}
	if got := ownMoves(mixed, 2); got != nil {
		t.Errorf("a seat with no moves: %v, want nil", got)
	}
	if got := ownMoves(nil, 0); got != nil {
		t.Errorf("no moves: %v, want nil", got)
	}
}

// TestEventRing: the ring holds the last events up to its limit, in order.
func TestEventRing(t *testing.T) {
	var q eventRing
	for v := int64(1); v <= 150; v++ {
		q.add(protocol.Event{Version: v}, 64)
		want := min(v, 64)
		if q.len() != int(want) {
			t.Fatalf("after %d: %d held, want %d", v, q.len(), want)
		}
		if got := q.back(1).Version; got != v {
			t.Fatalf("after %d: last is %d", v, got)
		}
		last := q.last(int(want))
		for i, ev := range last {
			if ev.Version != v-want+1+int64(i) {
				t.Fatalf("after %d: last(%d)[%d] = %d, want %d", v, want, i, ev.Version, v-want+1+int64(i))
			}
		}
		if got := q.back(int(want)).Version; got != v-want+1 {
			t.Fatalf("after %d: back(%d) = %d, want %d", v, want, got, v-want+1)
		}
	}
}

// TestEventRingKeepsCommittedEvents: what a ring gives back is the event
// commit made, each field of it.
func TestEventRingKeepsCommittedEvents(t *testing.T) {
	played := &sdk.PlayedMove{Seat: 1, Move: "7g7f", Text: "▲７六歩", Alt: "P-7f", Number: 3}
	events := []protocol.Event{
		{Type: protocol.EvMove, Version: 7, Round: 2, Seat: seatPtr(1), Move: "7g7f", Played: played, Computer: true},
		{Type: protocol.EvRequest, Version: 8, Round: 2, Seat: seatPtr(0), NewRound: &protocol.Pending{Accepted: []sdk.Seat{0}}},
		{Type: protocol.EvJoin, Version: 9, Seat: seatPtr(-1)},
		{Type: protocol.EvStart, Version: 10, Round: 3},
		{Type: protocol.EvMove, Version: 11, Round: 3, Seat: seatPtr(0), Move: sdk.Resign, Claimed: true},
		{Type: protocol.EvName, Version: 12, Round: 3, Seat: seatPtr(1), Name: "Hanako"},
	}
	var q eventRing
	for _, ev := range events {
		q.add(ev, 64)
	}
	if got := q.last(len(events)); !reflect.DeepEqual(got, events) {
		t.Fatalf("ring gives back\n%+v\nwant\n%+v", got, events)
	}
	// The ten fields of protocol.Event that commit sets, and hasSeat: a field
	// commit comes to set must be kept too (and this count moved).
	if n := reflect.TypeFor[recentEvent]().NumField(); n != 10+1 {
		t.Errorf("recentEvent has %d fields, want 11: does commit set a new one?", n)
	}
}

// TestSameCell: sameCell is ==, over cells that differ in each field.
func TestSameCell(t *testing.T) {
	cells := []sdk.Cell{{}, {Kind: "P"}, {Kind: "P", Owner: 1}, {Kind: "+P"}, {Kind: "P", Facing: 2},
		{Kind: "P", Promoted: true}, {Kind: "P", Flipped: true}, {Kind: "K", Owner: -1}}
	for _, a := range cells {
		for _, b := range cells {
			if got := sameCell(&a, &b); got != (a == b) {
				t.Errorf("sameCell(%+v, %+v) = %v", a, b, got)
			}
		}
	}
}
