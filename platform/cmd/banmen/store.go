package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/banmen/banmen/platform/internal/config"
	"github.com/banmen/banmen/platform/internal/room"
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
			// The DSN may hold a password: say where it came from, not what it
			// is (pgx's errors name the host, user and database, never the
			// password).
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

// hostID names this host among those sharing a database: the machine's
// name and random bits (a restarted host is a new one).
func hostID() string {
	name, _ := os.Hostname()
	name = strings.NewReplacer("/", "-", " ", "-").Replace(name)
	b := make([]byte, 4)
	rand.Read(b)
	if name == "" {
		name = "host"
	}
	return name + "-" + hex.EncodeToString(b)
}

// joinCluster makes this host one of those sharing the PostgreSQL store:
// it says it is alive before serving, then every beat, and hands the other
// hosts' notes to rooms. stop leaves the cluster (a graceful shutdown) and
// waits for the goroutines. For SQLite it does nothing.
func joinCluster(ctx context.Context, st store.Store, cfg config.Config, logger *slog.Logger) (cl room.Cluster, runsComputer func(string) bool, start func(*room.Manager), stop func(), err error) {
	pg, ok := st.(*postgres.Store)
	if !ok {
		return nil, nil, func(*room.Manager) {}, func() {}, nil
	}
	beat := cfg.Limits.HostHeartbeat
	c := pg.Cluster(hostID(), 3*beat)
	if _, err := c.Heartbeat(ctx); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("room store (postgres): %w", err)
	}
	// One host at a time runs a room's computer seats and clocks: the
	// holder of its lease (cluster.go of store/postgres).
	runsComputer = func(room string) bool {
		lctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		mine, err := c.RunsComputer(lctx, room)
		if err != nil {
			logger.Warn("room lease not read", "room", room, "err", err)
		}
		return mine
	}
	logger.Info("joined the hosts sharing the room store", "host", c.Host(), "heartbeat", beat)
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{}, 2)
	start = func(m *room.Manager) {
		go func() {
			defer func() { done <- struct{}{} }()
			pg.Listen(runCtx, logger, func(n postgres.Note) {
				switch n.Kind {
				case postgres.NoteAction:
					m.Changed(n.Room, n.Version)
				case postgres.NotePresence:
					m.PresenceChanged(n.Room)
				case postgres.NotePurged:
					m.Purged(n.Room)
				case postgres.NoteResync:
					m.Resync()
				}
			})
		}()
		go func() {
			defer func() { done <- struct{}{} }()
			t := time.NewTicker(beat)
			defer t.Stop()
			for {
				select {
				case <-runCtx.Done():
					return
				case <-t.C:
				}
				rejoined, err := c.Heartbeat(runCtx)
				if err != nil && runCtx.Err() == nil {
					logger.Warn("host heartbeat failed", "err", err)
				}
				if rejoined {
					logger.Warn("the other hosts took this host for dead; its connections are recorded again")
					m.Rejoined()
				}
				ids := m.LoadedIDs()
				if err := c.RenewLeases(runCtx, ids); err != nil && runCtx.Err() == nil {
					logger.Warn("room leases not renewed", "err", err)
				}
				// A note lost (a host died between its commit and its
				// NOTIFY) delays an event by one beat at most.
				if len(ids) > 0 {
					vs, err := pg.Versions(runCtx, ids)
					if err != nil && runCtx.Err() == nil {
						logger.Warn("room version check failed", "err", err)
					}
					for id, v := range vs {
						m.Changed(id, v)
					}
				}
			}
		}()
	}
	stop = func() {
		cancel()
		<-done
		<-done
		lctx, lcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer lcancel()
		if err := c.Leave(lctx); err != nil {
			logger.Warn("leaving the hosts sharing the room store", "err", err)
		}
	}
	return c, runsComputer, start, stop, nil
}
