package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/internal/store/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := Open(filepath.Join(t.TempDir(), "rooms.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestReopen: what was appended is there after closing and reopening the
// file, and the migrations are not applied twice.
func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rooms.db")
	ctx := context.Background()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(100, 0)
	if err := s.CreateRoom(ctx, store.Room{ID: "r", Variant: "v", Seats: 2, Created: now, Touched: now}, []byte("h")); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, store.Action{Room: "r", Version: 1, Kind: "move", Move: "a1", At: now}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, store.Action{Room: "r", Version: 2, Kind: "move", At: now}); err == nil {
		t.Error("Append after Close succeeded")
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	acts, err := s.Actions(ctx, "r", 0)
	if err != nil || len(acts) != 1 || acts[0].Move != "a1" {
		t.Fatalf("after reopen: %+v, %v", acts, err)
	}
	var n int
	if err := s.r.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(migrations)-1 {
		t.Errorf("schema_migrations has %d rows (%v), want %d", n, err, len(migrations)-1)
	}
	var mode string
	if err := s.w.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var syncMode int
	if err := s.w.QueryRow(`PRAGMA synchronous`).Scan(&syncMode); err != nil || syncMode != 2 {
		t.Errorf("synchronous = %d, %v; want 2 (FULL)", syncMode, err)
	}
}

// TestGroupCommit: concurrent appends of different rooms share transactions
// (fewer commits than appends), which is what makes a busy host cheap.
func TestGroupCommit(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const rooms = 64
	for i := range rooms {
		if err := s.CreateRoom(ctx, store.Room{ID: fmt.Sprint(i), Variant: "v", Seats: 2}, []byte("h")); err != nil {
			t.Fatal(err)
		}
	}
	// Hold the writer inside a transaction until every append is queued.
	gate, release := make(chan struct{}), make(chan struct{})
	go s.write(ctx, func(*sql.Tx) error { close(gate); <-release; return nil })
	<-gate
	var wg sync.WaitGroup
	for i := range rooms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Append(ctx, store.Action{Room: fmt.Sprint(i), Version: 1, Kind: "move", Move: "m"}); err != nil {
				t.Error(err)
			}
		}()
	}
	for len(s.reqs) < rooms {
		runtime.Gosched() // until every append is queued
	}
	before := s.commits.Load()
	close(release)
	wg.Wait()
	if n := s.commits.Load() - before; n > 2 {
		t.Errorf("%d queued appends took %d commits, want them grouped (≤ 2)", rooms, n)
	}
}

// BenchmarkAppendParallel: durable appends from many rooms at once, the
// load group commit is for (each append waits for its commit): 1000 rooms
// with ids as long as real ones. cpu-µs/op is the process's CPU (user and
// system) per append, which ns/op (the wall time) does not show.
func BenchmarkAppendParallel(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "rooms.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var next atomic.Int64
	b.SetParallelism(500)
	cpu := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		id := fmt.Sprintf("room-%017d", next.Add(1)) // 22 characters, as a real id
		if err := s.CreateRoom(ctx, store.Room{ID: id, Variant: "v", Seats: 2}, []byte("h")); err != nil {
			b.Error(err)
			return
		}
		v := int64(0)
		for pb.Next() {
			v++
			if err := s.Append(ctx, store.Action{Room: id, Version: v, Kind: "move", Seat: int(v % 2), Move: "7g7f", At: time.Unix(0, v)}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(processCPU()-cpu)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(b.N)/float64(max(1, s.commits.Load())), "appends/commit")
}

// processCPU is this process's user and system time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestAppendTouchesThroughTheLog: an append writes the actions table only,
// and the room's version and touch time are read from its log: Purge keeps
// a room whose row is old but whose last action is recent, and a conflict
// or a failed append in a batch leaves the others of that batch.
func TestAppendTouchesThroughTheLog(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	t0 := time.Unix(1000, 0)
	for _, id := range []string{"a", "b"} {
		if err := s.CreateRoom(ctx, store.Room{ID: id, Variant: "v", Seats: 2, Created: t0, Touched: t0}, []byte("h")); err != nil {
			t.Fatal(err)
		}
	}
	later := t0.Add(time.Hour)
	if err := s.Append(ctx, store.Action{Room: "a", Version: 1, Kind: "move", Move: "x", At: later}); err != nil {
		t.Fatal(err)
	}
	var rowTouched, rowVersion int64
	if err := s.r.QueryRow(`SELECT touched, version FROM rooms WHERE id = 'a'`).Scan(&rowTouched, &rowVersion); err != nil {
		t.Fatal(err)
	}
	if rowTouched != t0.UnixNano() || rowVersion != 0 {
		t.Errorf("the append wrote the rooms row: touched %d version %d", rowTouched, rowVersion)
	}
	r, err := s.Room(ctx, "a")
	if err != nil || r.Version != 1 || !r.Touched.Equal(later) {
		t.Fatalf("Room = version %d touched %v (%v); want 1 and the action's time", r.Version, r.Touched, err)
	}
	ids, err := s.Purge(ctx, t0.Add(time.Minute))
	if err != nil || len(ids) != 1 || ids[0] != "b" {
		t.Fatalf("Purge = %v, %v; want only b (a's last action is after the cutoff)", ids, err)
	}
	// Two appends of the same version at once: exactly one lands, and a
	// gap is refused.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Append(ctx, store.Action{Room: "a", Version: 2, Kind: "move", Move: fmt.Sprint(i), At: later})
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("two appends of version 2: %v, %v; want exactly one", errs[0], errs[1])
	}
	if err := s.Append(ctx, store.Action{Room: "a", Version: 4, Kind: "move", At: later}); err != store.ErrConflict {
		t.Fatalf("a gap: %v, want ErrConflict", err)
	}
	if r, _ := s.Room(ctx, "a"); r.Version != 2 {
		t.Fatalf("version %d, want 2", r.Version)
	}
}

// TestCommitDelay: a quiet store commits at once; under load the writer
// waits as long as the last commit took, never more than maxDelay.
func TestCommitDelay(t *testing.T) {
	for _, c := range []struct {
		prev int
		last time.Duration
		want time.Duration
	}{
		{0, time.Millisecond, 0},
		{1, time.Millisecond, 0},
		{groupAt - 1, time.Millisecond, 0},
		{groupAt, 700 * time.Microsecond, 700 * time.Microsecond},
		{maxBatch, time.Second, maxDelay},
	} {
		if got := commitDelay(c.prev, c.last); got != c.want {
			t.Errorf("commitDelay(%d, %v) = %v, want %v", c.prev, c.last, got, c.want)
		}
	}
}
