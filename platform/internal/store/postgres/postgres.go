// Package postgres is the rooms store on PostgreSQL, for several hosts
// sharing one database: the database arbitrates every action (a compare-and-
// set on the room's version, backed by the primary key (room, version) of the
// log), tells the other hosts what changed with NOTIFY in the same
// transaction, and keeps who is connected to which seat on which host (see
// cluster.go).
//
// It must never hold a seat key (only hashes) and never interpret a move.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations are applied in order, each once, under an advisory lock so
// that hosts starting together do not race; the schema version is the number
// applied. Never edit one that has shipped: add the next. Times are Unix
// nanoseconds (bigint), as in the SQLite store, so that both keep the exact
// time they were given.
var migrations = []string{
	1: `
CREATE TABLE rooms (
	id            text PRIMARY KEY,
	variant       text NOT NULL,
	options       text NOT NULL,
	seats         integer NOT NULL,
	rules_version text NOT NULL DEFAULT '',
	created       bigint NOT NULL,
	touched       bigint NOT NULL,
	version       bigint NOT NULL DEFAULT 0
);
CREATE INDEX rooms_touched ON rooms(touched);
CREATE TABLE seats (
	room     text NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
	seat     integer NOT NULL,
	key_hash bytea NOT NULL,
	PRIMARY KEY (room, seat)
);
CREATE TABLE actions (
	room    text NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
	version bigint NOT NULL,
	kind    text NOT NULL,
	seat    integer NOT NULL,
	move    text NOT NULL DEFAULT '',
	at      bigint NOT NULL,
	PRIMARY KEY (room, version)
);
-- Hosts sharing this database, and the connections they hold (cluster.go).
CREATE TABLE hosts (
	id   text PRIMARY KEY,
	seen timestamptz NOT NULL
);
CREATE TABLE presence (
	room  text NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
	seat  integer NOT NULL,
	host  text NOT NULL,
	conn  text NOT NULL,
	PRIMARY KEY (room, seat)
);
CREATE INDEX presence_host ON presence(host);
`,
	2: `
-- One-time seat codes, valid on every host (cluster.go).
CREATE TABLE seat_codes (
	room      text NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
	seat      integer NOT NULL,
	code_hash bytea NOT NULL,
	expires   bigint NOT NULL,
	PRIMARY KEY (room, seat)
);
`,
	3: `
-- Which host runs a room's computer seats and clocks, until when (cluster.go).
CREATE TABLE room_leases (
	room    text PRIMARY KEY REFERENCES rooms(id) ON DELETE CASCADE,
	host    text NOT NULL,
	expires timestamptz NOT NULL
);
CREATE INDEX room_leases_host ON room_leases(host);
`,
	4: `
-- How many spectators watch each room on each host (cluster.go).
CREATE TABLE watchers (
	room text NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
	host text NOT NULL,
	n    integer NOT NULL,
	PRIMARY KEY (room, host)
);
CREATE INDEX watchers_host ON watchers(host);
`,
}

// Channel is the NOTIFY channel of room events.
const Channel = "banmen_rooms"

// Store is a PostgreSQL store. Use Open.
type Store struct {
	pool *pgxpool.Pool
	dsn  string
	// notes queues the notes of committed appends for the notifier.
	notes    chan string
	notified chan struct{}
	mu       sync.RWMutex
	closed   bool
}

var _ store.Store = (*Store)(nil)

// Options tune a Store.
type Options struct {
	// MaxConns bounds the pool (0: the DSN's pool_max_conns, else 16).
	// Concurrent commits share a WAL flush, so more connections than cores
	// pay off: appends wait on the disk, not on the CPU.
	MaxConns int32
}

// Open connects to the database at dsn ("postgres://user@host/db" or
// "host=... dbname=...") and applies the migrations it lacks.
func Open(ctx context.Context, dsn string, o Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres dsn: %w", err)
	}
	switch {
	case o.MaxConns > 0:
		cfg.MaxConns = o.MaxConns
	case !strings.Contains(dsn, "pool_max_conns"):
		cfg.MaxConns = 16
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Store{pool: pool, dsn: dsn, notes: make(chan string, maxNotes), notified: make(chan struct{})}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres migrate: %w", err)
	}
	go s.notifier()
	return s, nil
}

// migrationLock is the advisory lock key that serialises migrations.
const migrationLock = 0x62616e6d656e // "banmen"

func (s *Store) migrate(ctx context.Context) error {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY)`); err != nil {
		return err
	}
	var have int
	if err := conn.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return err
	}
	if have >= len(migrations) {
		return nil
	}
	for v := have + 1; v < len(migrations); v++ {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migration %d: %w", v, err)
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_migrations(version) VALUES ($1)`, v)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// CreateRoom implements store.Store.
func (s *Store) CreateRoom(ctx context.Context, r store.Room, hostKeyHash []byte) error {
	opts, err := json.Marshal(r.Options)
	if err != nil {
		return err
	}
	if r.Options == nil {
		opts = []byte("{}")
	}
	// One statement: the seat is inserted only when the room was.
	var n int
	err = s.pool.QueryRow(ctx, `
WITH r AS (
	INSERT INTO rooms(id, variant, options, seats, rules_version, created, touched, version)
	VALUES ($1, $2, $3, $4, $5, $6, $7, 0) ON CONFLICT (id) DO NOTHING RETURNING id
), k AS (
	INSERT INTO seats(room, seat, key_hash) SELECT id, 0, $8 FROM r RETURNING 1
)
SELECT count(*) FROM k`,
		r.ID, r.Variant, string(opts), r.Seats, r.RulesVersion, r.Created.UnixNano(), r.Touched.UnixNano(), hostKeyHash).Scan(&n)
	if err != nil {
		return err
	}
	if n == 0 {
		return store.ErrExists
	}
	return nil
}

// appendSQL is the whole append in one statement (one round trip, atomic
// without an explicit transaction): the compare-and-set on the room's
// version, the log entry and the seat's new key. Under READ COMMITTED a
// racing second UPDATE waits for the first's row lock, then re-checks
// version = $2-1 and matches nothing: exactly one append of a version wins.
//
// The NOTIFY that tells the other hosts is sent after the commit, by the
// notifier, not in this transaction: PostgreSQL serialises the commits of
// notifying transactions (a lock held through the commit's WAL flush), which
// measured 3× fewer appends per second than committing in parallel. A note
// lost to a host dying between commit and notify only delays the event:
// hosts also check their rooms' versions every heartbeat (Versions).
const appendSQL = `
WITH b AS (
	UPDATE rooms SET version = $2, touched = $3 WHERE id = $1 AND version = $2 - 1 RETURNING id
), i AS (
	INSERT INTO actions(room, version, kind, seat, move, at) SELECT id, $2, $4, $5, $6, $3 FROM b RETURNING 1
), k AS (
	INSERT INTO seats(room, seat, key_hash) SELECT id, $5, $7 FROM b WHERE $7::bytea IS NOT NULL
	ON CONFLICT (room, seat) DO UPDATE SET key_hash = excluded.key_hash RETURNING 1
)
SELECT (SELECT count(*) FROM i), (SELECT count(*) FROM k), EXISTS (SELECT 1 FROM rooms WHERE id = $1)`

// Append implements store.Store. The commit is durable (synchronous_commit
// as the server is configured; on by default) before it returns.
func (s *Store) Append(ctx context.Context, a store.Action) error {
	var done, keyed int
	var exists bool
	var key any
	if a.KeyHash != nil {
		key = a.KeyHash
	}
	err := s.pool.QueryRow(ctx, appendSQL, a.Room, a.Version, a.At.UnixNano(), a.Kind, a.Seat, a.Move, key).
		Scan(&done, &keyed, &exists)
	if err != nil {
		var pgErr interface{ SQLState() string }
		if errors.As(err, &pgErr) && pgErr.SQLState() == "23505" { // unique_violation: a copy of this version
			return store.ErrConflict
		}
		return err
	}
	switch {
	case done == 1:
		s.notify("a " + a.Room + " " + strconv.FormatInt(a.Version, 10))
		return nil
	case !exists:
		return store.ErrNotFound
	}
	return store.ErrConflict
}

// Touch implements store.Store.
func (s *Store) Touch(ctx context.Context, id string, at time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE rooms SET touched = $2 WHERE id = $1`, id, at.UnixNano())
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// Purge implements store.Store. Hosts holding a purged room learn of it
// from its NOTIFY ("p ID").
func (s *Store) Purge(ctx context.Context, cutoff time.Time) ([]string, error) {
	rows, err := s.pool.Query(ctx, `
WITH d AS (DELETE FROM rooms WHERE touched < $1 RETURNING id),
n AS (SELECT pg_notify('`+Channel+`', 'p ' || id) FROM d)
SELECT id FROM d WHERE (SELECT count(*) FROM n) >= 0`, cutoff.UnixNano())
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	return ids, rows.Err()
}

// Room implements store.Store.
func (s *Store) Room(ctx context.Context, id string) (store.Room, error) {
	r := store.Room{ID: id}
	var opts string
	var created, touched int64
	err := s.pool.QueryRow(ctx, `SELECT variant, options, seats, rules_version, created, touched, version FROM rooms WHERE id = $1`, id).
		Scan(&r.Variant, &opts, &r.Seats, &r.RulesVersion, &created, &touched, &r.Version)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, store.ErrNotFound
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal([]byte(opts), &r.Options); err != nil {
		return r, fmt.Errorf("room %s options: %w", id, err)
	}
	r.Created, r.Touched = time.Unix(0, created), time.Unix(0, touched)
	return r, nil
}

// SeatKeys implements store.Store.
func (s *Store) SeatKeys(ctx context.Context, id string) ([]store.SeatKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT seat, key_hash FROM seats WHERE room = $1 ORDER BY seat`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.SeatKey
	for rows.Next() {
		var k store.SeatKey
		if err := rows.Scan(&k.Seat, &k.Hash); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// Actions implements store.Store.
func (s *Store) Actions(ctx context.Context, id string, after int64) ([]store.Action, error) {
	rows, err := s.pool.Query(ctx, `SELECT version, kind, seat, move, at FROM actions WHERE room = $1 AND version > $2 ORDER BY version`, id, after)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Action
	for rows.Next() {
		a := store.Action{Room: id}
		var at int64
		if err := rows.Scan(&a.Version, &a.Kind, &a.Seat, &a.Move, &at); err != nil {
			return nil, err
		}
		a.At = time.Unix(0, at)
		out = append(out, a)
	}
	return out, rows.Err()
}

// maxNotes bounds the notes sent in one statement (and queued).
const maxNotes = 512

// notify queues a note for the notifier; it never blocks an append for
// long: a full queue waits for the notifier's statement under way.
func (s *Store) notify(payload string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !s.closed {
		s.notes <- payload
	}
}

// notifier sends the queued notes, all that are waiting in one statement,
// until Close.
func (s *Store) notifier() {
	defer close(s.notified)
	batch := make([]string, 0, maxNotes)
	for first := range s.notes {
		batch = append(batch[:0], first)
	more:
		for len(batch) < maxNotes {
			select {
			case n, ok := <-s.notes:
				if !ok {
					break more
				}
				batch = append(batch, n)
			default:
				break more
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := s.pool.Exec(ctx, `SELECT pg_notify('`+Channel+`', n) FROM unnest($1::text[]) n`, batch)
		cancel()
		if err != nil {
			// Lost notes delay events until the hosts' next version check.
			slog.Warn("room notes not sent", "notes", len(batch), "err", err)
		}
	}
}

// Versions returns the version of each of the rooms ids that exists.
func (s *Store) Versions(ctx context.Context, ids []string) (map[string]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, version FROM rooms WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]int64, len(ids))
	for rows.Next() {
		var id string
		var v int64
		if err := rows.Scan(&id, &v); err != nil {
			return nil, err
		}
		out[id] = v
	}
	return out, rows.Err()
}

// Close implements store.Store: the notes queued are sent, then it waits
// for the queries under way.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.notes)
	s.mu.Unlock()
	<-s.notified
	s.pool.Close()
	return nil
}
