package postgres_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/internal/pgtest"
	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/internal/store/postgres"
	"github.com/banmen/banmen/platform/internal/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func open(t *testing.T) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), pgtest.DSN(t), postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSuite is the store behaviour every store shows (the SQLite store runs
// the same suite).
func TestSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return open(t) })
}

// TestLeases: one host at a time holds a room's lease; it keeps it while it
// renews it with the room in memory, and gives it up otherwise.
func TestLeases(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	if err := s.CreateRoom(ctx, store.Room{ID: "r1", Variant: "v", Seats: 2, Created: time.Now(), Touched: time.Now()}, []byte("h")); err != nil {
		t.Fatal(err)
	}
	a, b := s.Cluster("a", time.Minute), s.Cluster("b", time.Minute)
	for _, step := range []struct {
		c    *postgres.Cluster
		want bool
	}{{a, true}, {b, false}, {a, true}} {
		if got, err := step.c.RunsComputer(ctx, "r1"); err != nil || got != step.want {
			t.Fatalf("%s: RunsComputer = %v, %v; want %v", step.c.Host(), got, err, step.want)
		}
	}
	if err := a.RenewLeases(ctx, []string{"r1"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Cluster("b", time.Minute).RunsComputer(ctx, "r1"); got {
		t.Fatal("b took a lease that a renewed")
	}
	// a drops the room from memory: its next renewal gives the lease up.
	if err := a.RenewLeases(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Cluster("b", time.Minute).RunsComputer(ctx, "r1"); err != nil || !got {
		t.Fatalf("b after a gave the lease up: %v, %v", got, err)
	}
	if got, _ := s.Cluster("a", time.Minute).RunsComputer(ctx, "r1"); got {
		t.Fatal("a took b's lease back")
	}
	// A lapsed lease is taken.
	if err := s.CreateRoom(ctx, store.Room{ID: "r2", Variant: "v", Seats: 2, Created: time.Now(), Touched: time.Now()}, []byte("h")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Cluster("d", -time.Minute).RunsComputer(ctx, "r2"); err != nil || !got {
		t.Fatalf("d takes a free lease: %v, %v", got, err)
	}
	if got, err := s.Cluster("e", time.Minute).RunsComputer(ctx, "r2"); err != nil || !got {
		t.Fatalf("e takes d's lapsed lease: %v, %v", got, err)
	}
}
