package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/banmen/banmen/platform/internal/config"
	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/internal/store/postgres"
	"github.com/banmen/banmen/platform/internal/store/sqlite"
)

// openStore opens the rooms store the configuration names: SQLite in the
// data directory, or PostgreSQL at store_dsn.
func openStore(ctx context.Context, cfg config.Config) (store.Store, error) {
	switch cfg.Store {
	case "postgres":
		st, err := postgres.Open(ctx, cfg.StoreDSN, postgres.Options{})
		if err != nil {
			// The DSN may hold a password: name where it came from, not it.
			return nil, fmt.Errorf("room store (postgres, store_dsn from %s): %w", cfg.Origin("store_dsn"), err)
		}
		return st, nil
	default:
		st, err := sqlite.Open(filepath.Join(cfg.DataDir, "rooms.db"))
		if err != nil {
			return nil, fmt.Errorf("room store: %w", err)
		}
		return st, nil
	}
}
