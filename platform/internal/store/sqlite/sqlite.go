// Package sqlite is the embedded store of rooms: one SQLite file in WAL mode
// with synchronous=FULL, written by one connection through one goroutine that
// commits the appends of many rooms in one transaction (group commit), and
// read through a small pool of reader connections.
//
// The log is kept in commit order (table log, by seq), and the database is
// the arbiter of every append, whoever writes it (this store, a second store
// or process on the same file): the log's unique index on (room, version)
// refuses a second action at a room's version, and its trigger log_follows
// one that skips a version or names no room. A room's actions and head (its
// version, last action and that action's time) are read through that index.
//
// The writer keeps the versions of the rooms it appended to in memory, to
// check an append without a query. That cache is a fast path, never the
// arbiter: it is dropped whenever another connection has written the file
// (PRAGMA data_version), a refusal it makes is checked against the log
// before it is answered, and an insert the index refuses is a conflict, after
// which the room's head is read from the log again.
//
// It must never hold a seat key (only hashes) and never interpret a move.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/banmen/banmen/platform/internal/store"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// maxBatch bounds how many appends share one transaction.
const maxBatch = 256

// Store is a SQLite store. Use Open.
type Store struct {
	w    *sql.DB // the one writer connection, used only by the writer goroutine
	r    *sql.DB // readers
	reqs chan *request
	done chan struct{}
	// mu guards closed so that no request is sent after reqs is closed.
	mu     sync.RWMutex
	closed bool
	// commits counts committed batches (for tests and metrics).
	commits atomic.Int64
	// The statements of every append, prepared once on the writer
	// connection: parsing them for each action cost as much CPU as running
	// them (the load test's profile).
	savepoint, release, headGet, dataVersion *sql.Stmt
	// insertRows[k] appends 1<<k actions (appendRowsSQL); [0] one alone.
	insertRows [rowsStmts]*sql.Stmt
	// The writer's scratch space, kept between batches.
	plain, todo []int
	args        []any

	// The writer's cache of heads (see the package comment), used and
	// changed by the writer goroutine only. heads holds each room's version
	// as of the last commit; it is dropped when another connection wrote
	// the file since (seen, PRAGMA data_version), when a commit fails, and
	// when it grows past maxHeads.
	heads map[string]int64
	seen  int64
	// The batch's own, dropped when it does not commit: the versions it
	// read from the log or moved (exact: the batch holds the write lock),
	// and the rooms it purged.
	txHeads map[string]int64
	txGone  map[string]bool
}

// maxHeads bounds the heads the writer caches: past it the cache starts
// again empty (a query per room the next time it plays).
const maxHeads = 1 << 14

var _ store.Store = (*Store)(nil)

// request is one write for the writer goroutine; fn runs inside the batch's
// transaction (in its own savepoint) and its error goes back on res.
type request struct {
	ctx context.Context
	fn  func(tx *sql.Tx) error
	res chan error
	// single: fn needs no savepoint. Either it runs one statement, which
	// SQLite undoes by itself when it fails (statement atomicity), or a
	// failure after its first write is a *fatal, which rolls the whole
	// batch back.
	single bool
	// act, when set, is a plain append (no key hash) that the writer adds
	// with the batch's other plain appends in one statement (appendMany);
	// fn is then unused.
	act *store.Action
	// action is what act points to for an Append's request.
	action store.Action
}

// appends are Append's requests, kept between appends: a request, its
// channel and its action were three allocations per move. A request goes
// back once its result has been received (the writer touches a request
// no more after sending its result).
var appends = sync.Pool{New: func() any { return &request{res: make(chan error, 1)} }}

// dsn is the writer's connection string: WAL, a commit is on disk before
// it returns (synchronous=FULL), cascading deletes, and every transaction
// takes the write lock at BEGIN (BEGIN IMMEDIATE) rather than on its first
// write, so it can never fail half way on a busy database.
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "busy_timeout(10000)")
	// At 1000 rooms a group commit touches a leaf page per room: with the
	// default 2 MB page cache those pages were read back from the WAL
	// again and again, and a checkpoint every 1000 frames copied each
	// room's page to the database file over and over. A 64 MB cache and
	// a checkpoint every 10000 frames (a WAL of up to ~40 MB; a page
	// written ten times in it is copied once) took the writer's CPU per
	// append from ~34 to ~26 µs (BenchmarkAppendParallel).
	q.Add("_pragma", "cache_size(-65536)")
	q.Add("_pragma", "wal_autocheckpoint(10000)")
	// A statement that may be refused (the log's unique index and trigger)
	// keeps the pages it changes in a statement journal, to undo them;
	// past 64 KiB that journal spilled to a temporary file, a write system
	// call per page of the log's index (14% of BenchmarkAppendParallel's
	// CPU). In memory it costs a copy.
	q.Add("_pragma", "temp_store(MEMORY)")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// readerDSN is the readers' connection string: they only read.
func readerDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "query_only(1)")
	return "file:" + path + "?" + q.Encode()
}

// headSQL is a room's version, read through the log's index; no row when
// the room does not exist.
const headSQL = `SELECT IFNULL((SELECT MAX(version) FROM log WHERE room = ?1), 0) FROM rooms WHERE id = ?1`

// Open opens (creating when missing) the database file at path and applies
// the migrations it lacks.
func Open(path string) (*Store, error) {
	w, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := migrate(w); err != nil {
		w.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", readerDSN(path))
	if err != nil {
		w.Close()
		return nil, err
	}
	r.SetMaxOpenConns(4)
	s := &Store{w: w, r: r, reqs: make(chan *request, maxBatch), done: make(chan struct{}),
		heads: map[string]int64{}, seen: -1, txHeads: map[string]int64{}, txGone: map[string]bool{}}
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&s.savepoint, `SAVEPOINT req`},
		{&s.release, `RELEASE req`},
		{&s.headGet, headSQL},
		{&s.dataVersion, `PRAGMA data_version`},
	} {
		if *p.st, err = w.Prepare(p.sql); err != nil {
			s.closeStmts()
			w.Close()
			r.Close()
			return nil, fmt.Errorf("prepare %q: %w", p.sql, err)
		}
	}
	for k := range s.insertRows {
		q := appendRowsSQL(1 << k)
		if s.insertRows[k], err = w.Prepare(q); err != nil {
			s.closeStmts()
			w.Close()
			r.Close()
			return nil, fmt.Errorf("prepare %q: %w", q, err)
		}
	}
	go s.writer()
	return s, nil
}

func migrate(db *sql.DB) error {
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY) STRICT`); err != nil {
		return err
	}
	var have int
	if err := db.QueryRow(`SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return err
	}
	if have >= len(migrations) {
		return nil
	}
	for v := have + 1; v < len(migrations); v++ {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		if check := before[v]; check != nil {
			if err := check(tx); err != nil {
				tx.Rollback()
				return fmt.Errorf("migration %d: %w", v, err)
			}
		}
		if _, err := tx.Exec(migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", v, err)
		}
		if _, err := tx.Exec(`INSERT INTO schema_migrations(version) VALUES (?)`, v); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) closeStmts() {
	for _, st := range append([]*sql.Stmt{s.savepoint, s.release, s.headGet, s.dataVersion}, s.insertRows[:]...) {
		if st != nil {
			st.Close()
		}
	}
}

// Close implements store.Store: it lets queued writes commit, then closes
// the connections.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.reqs)
	s.mu.Unlock()
	<-s.done
	s.closeStmts()
	return errors.Join(s.r.Close(), s.w.Close())
}
