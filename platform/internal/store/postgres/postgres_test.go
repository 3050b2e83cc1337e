package postgres_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/banmen/banmen/platform/internal/pgtest"
	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/internal/store/postgres"
	"github.com/banmen/banmen/platform/internal/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func open(t *testing.T) *postgres.Store {
	t.Helper()
	return openDSN(t, pgtest.DSN(t))
}

func openDSN(t *testing.T, dsn string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSuite is the store behaviour every store shows (the SQLite store runs
// the same suite); its stores on one database are pools of their own, as
// two hosts would have.
func TestSuite(t *testing.T) {
	storetest.Run(t, func(t *testing.T, n int) []store.Store {
		dsn := pgtest.DSN(t)
		var ss []store.Store
		for range n {
			ss = append(ss, openDSN(t, dsn))
		}
		return ss
	})
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

// TestActionsUniqueInTheDatabase: the database itself refuses a second
// action at a room's version (the log's primary key (room, version)),
// whoever writes it: here a connection of its own, not the store.
func TestActionsUniqueInTheDatabase(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	s := openDSN(t, dsn)
	if err := s.CreateRoom(ctx, store.Room{ID: "r1", Variant: "v", Seats: 2, Created: time.Now(), Touched: time.Now()}, []byte("h")); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, store.Action{Room: "r1", Version: 1, Kind: "move", Move: "a", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `INSERT INTO actions(room, version, kind, seat, move, at) VALUES ('r1', 1, 'move', 0, 'b', 0)`)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		t.Fatalf("a second action at version 1 inserted by hand: %v, want a unique violation (23505)", err)
	}
	if acts, err := s.Actions(ctx, "r1", 0); err != nil || len(acts) != 1 || acts[0].Move != "a" {
		t.Errorf("Actions = %+v, %v; want the first action alone", acts, err)
	}
}
