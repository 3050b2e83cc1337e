// Package storetest is the behaviour every store.Store must show, as one
// suite that each implementation runs against itself: the SQLite store
// and the PostgreSQL store. It knows nothing of any implementation.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
)

// Run runs the suite. open returns n stores on one new, empty database (n
// above 1: as many processes or hosts sharing it), which the test may use
// until it ends (the implementation closes them in t.Cleanup).
func Run(t *testing.T, open func(t *testing.T, n int) []store.Store) {
	newStore := func(t *testing.T) store.Store { return open(t, 1)[0] }
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"CreateAndRead", testCreateAndRead},
		{"UnknownRoom", testUnknownRoom},
		{"DuplicateRoom", testDuplicateRoom},
		{"AppendInOrder", testAppendInOrder},
		{"StaleAndDuplicateAppend", testStaleAndDuplicateAppend},
		{"KeyHashWithAppend", testKeyHashWithAppend},
		{"RacingAppendsOneWins", testRacingAppendsOneWins},
		{"ManyRoomsConcurrently", testManyRoomsConcurrently},
		{"TouchAndPurge", testTouchAndPurge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
	t.Run("TwoStoresTakeTurns", func(t *testing.T) { testTwoStoresTakeTurns(t, open(t, 2)) })
	t.Run("TwoStoresRaceOneRoom", func(t *testing.T) { testTwoStoresRaceOneRoom(t, open(t, 2)) })
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)

func newRoom(id string) store.Room {
	return store.Room{ID: id, Variant: "tictactoe", Options: map[string]string{"a": "1"}, Seats: 2,
		RulesVersion: "v7", Created: t0, Touched: t0}
}

func mustCreate(t *testing.T, s store.Store, id string) {
	t.Helper()
	if err := s.CreateRoom(context.Background(), newRoom(id), []byte("host-hash")); err != nil {
		t.Fatalf("CreateRoom %s: %v", id, err)
	}
}

func testCreateAndRead(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, "r1")
	r, err := s.Room(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	want := newRoom("r1")
	if r.ID != want.ID || r.Variant != want.Variant || r.Seats != 2 || r.RulesVersion != "v7" ||
		r.Options["a"] != "1" || len(r.Options) != 1 || r.Version != 0 ||
		!r.Created.Equal(t0) || !r.Touched.Equal(t0) {
		t.Errorf("Room = %+v, want %+v at version 0", r, want)
	}
	keys, err := s.SeatKeys(ctx, "r1")
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0].Seat != 0 || !bytes.Equal(keys[0].Hash, []byte("host-hash")) {
		t.Errorf("SeatKeys = %+v, want seat 0 held by the host's hash", keys)
	}
	acts, err := s.Actions(ctx, "r1", 0)
	if err != nil || len(acts) != 0 {
		t.Errorf("Actions of a new room = %v, %v; want none", acts, err)
	}
}

func testUnknownRoom(t *testing.T, s store.Store) {
	ctx := context.Background()
	if _, err := s.Room(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Room(unknown) err = %v, want ErrNotFound", err)
	}
	err := s.Append(ctx, store.Action{Room: "nope", Version: 1, Kind: "move", Move: "x", At: t0})
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Append(unknown) err = %v, want ErrNotFound", err)
	}
	if err := s.Touch(ctx, "nope", t0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Touch(unknown) err = %v, want ErrNotFound", err)
	}
}

func testDuplicateRoom(t *testing.T, s store.Store) {
	mustCreate(t, s, "r1")
	err := s.CreateRoom(context.Background(), newRoom("r1"), []byte("other"))
	if !errors.Is(err, store.ErrExists) {
		t.Errorf("second CreateRoom err = %v, want ErrExists", err)
	}
	keys, _ := s.SeatKeys(context.Background(), "r1")
	if len(keys) != 1 || !bytes.Equal(keys[0].Hash, []byte("host-hash")) {
		t.Errorf("a refused CreateRoom changed the seats: %+v", keys)
	}
}

func testAppendInOrder(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, "r1")
	for v := int64(1); v <= 5; v++ {
		a := store.Action{Room: "r1", Version: v, Kind: "move", Seat: int(v % 2), Move: fmt.Sprint("m", v), At: t0.Add(time.Duration(v) * time.Minute)}
		if err := s.Append(ctx, a); err != nil {
			t.Fatalf("Append v%d: %v", v, err)
		}
	}
	r, _ := s.Room(ctx, "r1")
	if r.Version != 5 || !r.Touched.Equal(t0.Add(5*time.Minute)) {
		t.Errorf("after 5 appends Room = version %d touched %v; want 5 and the last action's time", r.Version, r.Touched)
	}
	acts, err := s.Actions(ctx, "r1", 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 3 {
		t.Fatalf("Actions after 2 = %d actions, want 3", len(acts))
	}
	for i, a := range acts {
		v := int64(i + 3)
		if a.Room != "r1" || a.Version != v || a.Kind != "move" || a.Seat != int(v%2) || a.Move != fmt.Sprint("m", v) ||
			!a.At.Equal(t0.Add(time.Duration(v)*time.Minute)) || a.KeyHash != nil {
			t.Errorf("action %d = %+v", i, a)
		}
	}
}

func testStaleAndDuplicateAppend(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, "r1")
	a := store.Action{Room: "r1", Version: 1, Kind: "move", Move: "a", At: t0}
	if err := s.Append(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, a); !errors.Is(err, store.ErrConflict) {
		t.Errorf("duplicate Append err = %v, want ErrConflict", err)
	}
	gap := store.Action{Room: "r1", Version: 3, Kind: "move", Move: "c", At: t0}
	if err := s.Append(ctx, gap); !errors.Is(err, store.ErrConflict) {
		t.Errorf("Append past the next version err = %v, want ErrConflict", err)
	}
	acts, _ := s.Actions(ctx, "r1", 0)
	if len(acts) != 1 || acts[0].Move != "a" {
		t.Errorf("log after refused appends = %+v, want only the first", acts)
	}
	if r, _ := s.Room(ctx, "r1"); r.Version != 1 {
		t.Errorf("version after refused appends = %d, want 1", r.Version)
	}
}

func testKeyHashWithAppend(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, "r1")
	if err := s.Append(ctx, store.Action{Room: "r1", Version: 1, Kind: "claim", Seat: 1, At: t0, KeyHash: []byte("guest")}); err != nil {
		t.Fatal(err)
	}
	// A refused append must not change a seat's key either.
	err := s.Append(ctx, store.Action{Room: "r1", Version: 1, Kind: "claim", Seat: 1, At: t0, KeyHash: []byte("thief")})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale claim err = %v, want ErrConflict", err)
	}
	if err := s.Append(ctx, store.Action{Room: "r1", Version: 2, Kind: "rekey", Seat: 0, At: t0, KeyHash: []byte("host2")}); err != nil {
		t.Fatal(err)
	}
	keys, _ := s.SeatKeys(ctx, "r1")
	want := []store.SeatKey{{Seat: 0, Hash: []byte("host2")}, {Seat: 1, Hash: []byte("guest")}}
	if !slices.EqualFunc(keys, want, func(a, b store.SeatKey) bool { return a.Seat == b.Seat && bytes.Equal(a.Hash, b.Hash) }) {
		t.Errorf("SeatKeys = %+v, want %+v", keys, want)
	}
}

// testRacingAppendsOneWins: many writers answer the same version; exactly
// one is applied, the rest are conflicts.
func testRacingAppendsOneWins(t *testing.T, s store.Store) {
	ctx := context.Background()
	mustCreate(t, s, "r1")
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Append(ctx, store.Action{Room: "r1", Version: 1, Kind: "move", Seat: i, Move: fmt.Sprint(i), At: t0})
		}()
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won >= 0:
			t.Errorf("two appends of version 1 succeeded: %d and %d", won, i)
		case err == nil:
			won = i
		case !errors.Is(err, store.ErrConflict):
			t.Errorf("append %d: %v, want nil or ErrConflict", i, err)
		}
	}
	acts, _ := s.Actions(ctx, "r1", 0)
	if won < 0 || len(acts) != 1 || acts[0].Seat != won {
		t.Errorf("log = %+v, winner %d; want exactly the winner's action", acts, won)
	}
}

// testManyRoomsConcurrently: appends of different rooms at once all succeed
// and each room's log is complete and in order (the store may group them).
func testManyRoomsConcurrently(t *testing.T, s store.Store) {
	ctx := context.Background()
	const rooms, moves = 20, 10
	for i := range rooms {
		mustCreate(t, s, fmt.Sprint("room", i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, rooms)
	for i := range rooms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := int64(1); v <= moves; v++ {
				if err := s.Append(ctx, store.Action{Room: fmt.Sprint("room", i), Version: v, Kind: "move", Move: fmt.Sprint(v), At: t0}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i := range rooms {
		acts, err := s.Actions(ctx, fmt.Sprint("room", i), 0)
		if err != nil || len(acts) != moves {
			t.Fatalf("room%d: %d actions, %v", i, len(acts), err)
		}
		for j, a := range acts {
			if a.Version != int64(j+1) || a.Move != fmt.Sprint(j+1) {
				t.Errorf("room%d action %d = %+v", i, j, a)
			}
		}
	}
}

func testTouchAndPurge(t *testing.T, s store.Store) {
	ctx := context.Background()
	for _, id := range []string{"old", "fresh", "touched", "acted"} {
		mustCreate(t, s, id)
	}
	later := t0.Add(time.Hour)
	if err := s.Touch(ctx, "touched", later); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, store.Action{Room: "acted", Version: 1, Kind: "move", Move: "m", At: later, KeyHash: []byte("k")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Touch(ctx, "fresh", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	// The cutoff is exclusive: a room touched exactly at the cutoff stays.
	ids, err := s.Purge(ctx, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []string{"old"}) {
		t.Errorf("Purge = %v, want [old]", ids)
	}
	if _, err := s.Room(ctx, "old"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("purged room: %v, want ErrNotFound", err)
	}
	if k, _ := s.SeatKeys(ctx, "old"); len(k) != 0 {
		t.Errorf("purged room keeps seats %v", k)
	}
	if err := s.Append(ctx, store.Action{Room: "old", Version: 1, Kind: "move", At: later}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Append to a purged room: %v, want ErrNotFound", err)
	}
	again, err := s.Purge(ctx, t0.Add(time.Minute))
	if err != nil || len(again) != 0 {
		t.Errorf("second Purge = %v, %v; want nothing", again, err)
	}
	ids, err = s.Purge(ctx, later.Add(time.Nanosecond))
	slices.Sort(ids)
	if err != nil || !slices.Equal(ids, []string{"acted", "fresh", "touched"}) {
		t.Errorf("Purge after everything = %v, %v", ids, err)
	}
	if a, _ := s.Actions(ctx, "acted", 0); len(a) != 0 {
		t.Errorf("purged room keeps its log: %v", a)
	}
	// The same ID may be used again after a purge.
	mustCreate(t, s, "acted")
}

// testTwoStoresTakeTurns: two stores on one database append to one room in
// turn. Each one's view of the room may be behind the other's appends: a
// version the other took is a conflict, and the next version after it is
// taken, never refused for good.
func testTwoStoresTakeTurns(t *testing.T, ss []store.Store) {
	ctx := context.Background()
	a, b := ss[0], ss[1]
	mustCreate(t, a, "r1")
	move := func(v int64, text string) store.Action {
		return store.Action{Room: "r1", Version: v, Kind: "move", Seat: int(v % 2), Move: text, At: t0.Add(time.Duration(v) * time.Second)}
	}
	for _, step := range []struct {
		s    store.Store
		name string
		a    store.Action
		want error
	}{
		{a, "a", move(1, "a1"), nil},
		{b, "b", move(2, "b2"), nil},
		{a, "a", move(2, "a2"), store.ErrConflict}, // taken by b
		{a, "a", move(3, "a3"), nil},
		{b, "b", move(3, "b3"), store.ErrConflict}, // taken by a
		{b, "b", move(5, "b5"), store.ErrConflict}, // a gap
		{b, "b", move(4, "b4"), nil},
		{a, "a", store.Action{Room: "r1", Version: 5, Kind: "claim", Seat: 1, At: t0, KeyHash: []byte("a-key")}, nil},
		{b, "b", store.Action{Room: "r1", Version: 5, Kind: "claim", Seat: 1, At: t0, KeyHash: []byte("b-key")}, store.ErrConflict},
		{b, "b", move(6, "b6"), nil},
		{a, "a", move(6, "a6"), store.ErrConflict},
		{a, "a", move(7, "a7"), nil},
	} {
		if err := step.s.Append(ctx, step.a); !errors.Is(err, step.want) || (err == nil) != (step.want == nil) {
			t.Fatalf("%s appends version %d (%s): %v, want %v", step.name, step.a.Version, step.a.Move, err, step.want)
		}
	}
	want := []string{"a1", "b2", "a3", "b4", "", "b6", "a7"}
	for i, s := range ss {
		if r, err := s.Room(ctx, "r1"); err != nil || r.Version != int64(len(want)) {
			t.Errorf("store %d: Room = version %d, %v; want %d", i, r.Version, err, len(want))
		}
		acts, err := s.Actions(ctx, "r1", 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for j, a := range acts {
			if a.Version != int64(j+1) {
				t.Errorf("store %d: action %d has version %d", i, j, a.Version)
			}
			got = append(got, a.Move)
		}
		if !slices.Equal(got, want) {
			t.Errorf("store %d: log %q, want %q", i, got, want)
		}
		keys, _ := s.SeatKeys(ctx, "r1")
		if len(keys) != 2 || keys[1].Seat != 1 || !bytes.Equal(keys[1].Hash, []byte("a-key")) {
			t.Errorf("store %d: SeatKeys = %+v, want seat 1 held by a-key (b's claim was refused)", i, keys)
		}
	}
}

// testTwoStoresRaceOneRoom: writers on two stores on one database race to
// append each next version of one room. Every version is won exactly once,
// every loser hears ErrConflict, and the log has no duplicate and no gap.
func testTwoStoresRaceOneRoom(t *testing.T, ss []store.Store) {
	ctx := context.Background()
	mustCreate(t, ss[0], "r1")
	const versions, writers = 60, 8 // writers on each store, in turn
	var mu sync.Mutex
	winner := make([]string, versions+1) // by version: the winner's move
	wins, conflicts := 0, 0
	var wg sync.WaitGroup
	for w := range writers {
		s := ss[w%len(ss)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A writer only names a version at most one past the last one
			// it knows of, so a refusal always means the version is taken.
			for v := int64(1); v <= versions; {
				text := fmt.Sprintf("w%d@%d", w, v)
				err := s.Append(ctx, store.Action{Room: "r1", Version: v, Kind: "move", Seat: w, Move: text, At: t0})
				switch {
				case err == nil:
					mu.Lock()
					if winner[v] != "" {
						t.Errorf("version %d won twice: %s and %s", v, winner[v], text)
					}
					winner[v] = text
					wins++
					mu.Unlock()
					v++
				case errors.Is(err, store.ErrConflict):
					mu.Lock()
					conflicts++
					mu.Unlock()
					r, err := s.Room(ctx, "r1")
					if err != nil {
						t.Error(err)
						return
					}
					v = max(v+1, r.Version+1)
				default:
					t.Errorf("writer %d appending version %d: %v, want nil or ErrConflict", w, v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d versions won, %d conflicts", wins, conflicts)
	if wins != versions {
		t.Errorf("%d appends won, want %d (one a version)", wins, versions)
	}
	for i, s := range ss {
		acts, err := s.Actions(ctx, "r1", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(acts) != versions {
			t.Errorf("store %d: the log holds %d actions, want %d", i, len(acts), versions)
		}
		for j, a := range acts {
			if a.Version != int64(j+1) || a.Move != winner[a.Version] {
				t.Errorf("store %d: action %d = version %d %q, want version %d %q", i, j, a.Version, a.Move, j+1, winner[min(j+1, versions)])
			}
		}
		if r, err := s.Room(ctx, "r1"); err != nil || r.Version != versions {
			t.Errorf("store %d: Room = version %d, %v; want %d", i, r.Version, err, versions)
		}
	}
}
