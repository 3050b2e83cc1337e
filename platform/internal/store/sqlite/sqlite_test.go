package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
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
