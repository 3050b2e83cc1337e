package postgres_test

import (
	"context"
	"os"
	"testing"

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
