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
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// migrations are applied in order, each once; the schema version is the
// number applied. Never edit one that has shipped: add the next.
var migrations = []string{
	1: `
CREATE TABLE rooms (
	id            TEXT PRIMARY KEY,
	variant       TEXT NOT NULL,
	options       TEXT NOT NULL,
	seats         INTEGER NOT NULL,
	rules_version TEXT NOT NULL DEFAULT '',
	created       INTEGER NOT NULL,
	touched       INTEGER NOT NULL,
	version       INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX rooms_touched ON rooms(touched);
CREATE TABLE seats (
	room     TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
	seat     INTEGER NOT NULL,
	key_hash BLOB NOT NULL,
	PRIMARY KEY (room, seat)
) STRICT, WITHOUT ROWID;
CREATE TABLE actions (
	room    TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
	version INTEGER NOT NULL,
	kind    TEXT NOT NULL,
	seat    INTEGER NOT NULL,
	move    TEXT NOT NULL DEFAULT '',
	at      INTEGER NOT NULL,
	PRIMARY KEY (room, version)
) STRICT, WITHOUT ROWID;
`,
	// 2: the log is written in commit order, not kept sorted by room. With
	// actions keyed by (room, version) every action of a group commit
	// landed on a different leaf page (its room's), so a commit of N
	// appends wrote N pages to the WAL. Now a group's actions share the
	// log's last pages, and each room's head (its version, last action and
	// last action's time) is a row of a small table whose pages many rooms
	// share. A room's actions are found by walking back from its head
	// through prev, each a lookup by seq.
	2: `
CREATE TABLE heads (
	room    TEXT PRIMARY KEY REFERENCES rooms(id) ON DELETE CASCADE,
	version INTEGER NOT NULL,
	last    INTEGER NOT NULL,
	at      INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TABLE log (
	seq     INTEGER PRIMARY KEY,
	room    TEXT NOT NULL,
	version INTEGER NOT NULL,
	prev    INTEGER NOT NULL,
	kind    TEXT NOT NULL,
	seat    INTEGER NOT NULL,
	move    TEXT NOT NULL,
	at      INTEGER NOT NULL
) STRICT;
INSERT INTO log(seq, room, version, prev, kind, seat, move, at)
	SELECT n, room, version, COALESCE(LAG(n) OVER (PARTITION BY room ORDER BY version), 0), kind, seat, move, at
	FROM (SELECT ROW_NUMBER() OVER (ORDER BY room, version) AS n, * FROM actions)
	ORDER BY n;
INSERT INTO heads(room, version, last, at)
	SELECT rooms.id, COALESCE(l.version, 0), COALESCE(l.seq, 0), COALESCE(l.at, 0)
	FROM rooms LEFT JOIN (SELECT room, MAX(version) AS version, seq, at FROM log GROUP BY room) AS l ON l.room = rooms.id;
DROP TABLE actions;
`,
	// 3: the heads are moved in the writer's memory and written to the
	// table once a second, not on every commit (see flush); heads_seq is
	// the log's seq the table's heads are complete up to, and Open rolls
	// them forward from the log rows above it.
	3: `
CREATE TABLE heads_seq (seq INTEGER NOT NULL) STRICT;
INSERT INTO heads_seq(seq) SELECT COALESCE(MAX(seq), 0) FROM log;
`,
	// 4: the database arbitrates again. The log gets a unique index on
	// (room, version), so that a second action at a room's version is
	// refused by SQLite itself, whoever writes it, and a trigger refuses an
	// action that does not follow its room's last one (a gap) or names no
	// room; the heads and their checkpoint go (a room's head is read through
	// the index), and so does prev, which only the walk back from a head
	// read. Before it runs, migrate checks that the log holds no version
	// twice (noTwice): it fails then, naming the rows, and changes nothing.
	4: `
CREATE UNIQUE INDEX log_room_version ON log(room, version);
CREATE TRIGGER log_follows BEFORE INSERT ON log
	WHEN NOT EXISTS (SELECT 1 FROM rooms WHERE id = NEW.room)
		OR (NEW.version <> 1 AND NOT EXISTS (SELECT 1 FROM log WHERE room = NEW.room AND version = NEW.version - 1))
	BEGIN SELECT RAISE(ABORT, 'log: not the next version of an existing room'); END;
DROP TABLE heads;
DROP TABLE heads_seq;
ALTER TABLE log DROP COLUMN prev;
`,
}

// before are the checks a migration needs to pass before it runs, in its
// transaction; an error leaves the file as it was.
var before = map[int]func(tx *sql.Tx) error{4: noTwice}

// noTwice fails when the log holds two actions at the same version of a
// room (something only a second writer or a bug could have left, before
// migration 4 made the database refuse them). It drops nothing: which of
// the two a room keeps is for its operator to decide.
func noTwice(tx *sql.Tx) error {
	var pairs int64
	if err := tx.QueryRow(`SELECT COUNT(*) FROM (SELECT 1 FROM log GROUP BY room, version HAVING COUNT(*) > 1)`).Scan(&pairs); err != nil {
		return err
	}
	if pairs == 0 {
		return nil
	}
	var room string
	var version, rows int64
	if err := tx.QueryRow(`SELECT room, version, COUNT(*) FROM log GROUP BY room, version HAVING COUNT(*) > 1
		ORDER BY room, version LIMIT 1`).Scan(&room, &version, &rows); err != nil {
		return err
	}
	return fmt.Errorf("the log holds %d (room, version) pairs more than once (the first: room %q version %d, %d rows; "+
		"SELECT room, version, seq FROM log WHERE (room, version) IN (SELECT room, version FROM log GROUP BY room, version HAVING COUNT(*) > 1) lists them): "+
		"the unique index cannot be made; nothing was changed or dropped, remove the extra rows by hand and start again", pairs, room, version, rows)
}

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

// writer is the only user of the writer connection. It takes the requests
// waiting (up to maxBatch), runs them in one BEGIN IMMEDIATE transaction in
// the order they came, so that one failure leaves the others (each in a
// savepoint, or one statement SQLite undoes by itself; runs of plain
// appends a few statements for all of them, see appendMany), commits, and
// only then answers each: an append is durable when its caller hears back.
//
// Under load it first waits a little for more (see commitDelay): a commit
// costs about as much CPU as twenty-five appends (its fsync and its WAL
// frames), so the size of a group is most of the cost of an append.
func (s *Store) writer() {
	defer close(s.done)
	batch := make([]*request, 0, maxBatch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var last time.Duration // how long the last commit took
	prev := 0              // how many requests it held
	for first := range s.reqs {
		batch = append(batch[:0], first)
		open := true
	more:
		for len(batch) < maxBatch {
			select {
			case r, ok := <-s.reqs:
				if !ok {
					open = false
					break more
				}
				batch = append(batch, r)
			default:
				break more
			}
		}
		if d := commitDelay(prev, last); open && d > 0 && len(batch) < maxBatch {
			timer.Reset(d)
		wait:
			for len(batch) < maxBatch {
				select {
				case r, ok := <-s.reqs:
					if !ok {
						break wait
					}
					batch = append(batch, r)
				case <-timer.C:
					break wait
				}
			}
			timer.Stop()
		}
		start := time.Now()
		s.commit(batch)
		last, prev = time.Since(start), len(batch)
	}
}

// commitDelay is how long the writer waits for more appends before a
// commit, given the size and duration of the last one: nothing while the
// store is quiet (a lone move is committed at once), and while groups
// form by themselves (at least groupAt appends arrived during a commit)
// twice as long as one commit takes, at least minDelay and at most
// maxDelay. A commit's cost is mostly fixed (its fsync and WAL frames:
// ~200 µs of CPU against ~2 µs for each append in it), so bigger groups
// cost less per append. Twice the last commit alone was too short when
// moves come evenly spread rather than in bursts: paced at 10,000 moves/s
// over 1000 rooms a commit took ~0.6 ms, so the writer committed ~500
// times a second, ~20 moves each, at ~13 µs of the host's CPU a move; the
// 3 ms floor makes it ~230 commits of ~43 moves, ~4.5 µs less a move, for
// ~1.5 ms more on a move's round trip (the load command's paced runs).
func commitDelay(prev int, last time.Duration) time.Duration {
	if prev < groupAt {
		return 0
	}
	return min(max(2*last, minDelay), maxDelay)
}

const (
	groupAt  = 4
	minDelay = 3 * time.Millisecond
	maxDelay = 4 * time.Millisecond
)

func (s *Store) commit(batch []*request) {
	results := make([]error, len(batch))
	tx, err := s.w.Begin()
	if err != nil {
		for _, r := range batch {
			r.res <- fmt.Errorf("begin: %w", err)
		}
		return
	}
	clear(s.txHeads)
	clear(s.txGone)
	// Another connection (a second store, a second process) committed
	// since this writer's last commit: the cached heads may be behind.
	var seen int64
	if err := tx.Stmt(s.dataVersion).QueryRow().Scan(&seen); err != nil {
		s.abort(tx, batch, fmt.Errorf("data_version: %w", err))
		return
	}
	if seen != s.seen {
		clear(s.heads)
		s.seen = seen
	}
	plain := s.plain[:0]
	for i, r := range batch {
		if err := r.ctx.Err(); err != nil {
			results[i] = err
			continue
		}
		if r.act != nil {
			plain = append(plain, i)
			continue
		}
		// The plain appends before this request go first: the batch is
		// applied in the order it arrived.
		if err := s.appendMany(tx, batch, plain, results); err != nil {
			s.abort(tx, batch, err)
			return
		}
		plain = plain[:0]
		if r.single {
			results[i] = r.fn(tx)
			if f, ok := results[i].(*fatal); ok {
				s.abort(tx, batch, f.err)
				return
			}
			continue
		}
		if _, err := tx.Stmt(s.savepoint).Exec(); err != nil {
			results[i] = err
			continue
		}
		if err := r.fn(tx); err != nil {
			results[i] = err
			if f, ok := err.(*fatal); ok {
				results[i] = f.err // the savepoint undoes it
			}
			if _, rbErr := tx.Exec(`ROLLBACK TO req`); rbErr != nil {
				// The transaction is unusable: fail the whole batch.
				s.abort(tx, batch, fmt.Errorf("rollback to savepoint: %w", rbErr))
				return
			}
		}
		if _, err := tx.Stmt(s.release).Exec(); err != nil && results[i] == nil {
			results[i] = err
		}
	}
	s.plain = plain
	if err := s.appendMany(tx, batch, plain, results); err != nil {
		s.abort(tx, batch, err)
		return
	}
	if err := tx.Commit(); err != nil {
		// The commit may have reached the file or not: what the writer
		// holds is no longer known to be the file's.
		clear(s.heads)
		for _, r := range batch {
			r.res <- fmt.Errorf("commit: %w", err)
		}
		return
	}
	s.committed()
	s.commits.Add(1)
	for i, r := range batch {
		r.res <- results[i]
	}
}

// committed makes the batch's heads the writer's, once its transaction
// has committed.
func (s *Store) committed() {
	if len(s.heads)+len(s.txHeads) > maxHeads {
		clear(s.heads)
	}
	for room, v := range s.txHeads {
		s.heads[room] = v
	}
	for room := range s.txGone {
		delete(s.heads, room)
	}
}

// headOf is room's version as the batch sees it, ok false when the room
// does not exist; exact when it comes from the batch itself or the log,
// not from the writer's cache.
func (s *Store) headOf(tx *sql.Tx, room string) (v int64, ok, exact bool, err error) {
	if s.txGone[room] {
		return 0, false, true, nil
	}
	if v, ok := s.txHeads[room]; ok {
		return v, true, true, nil
	}
	if v, ok := s.heads[room]; ok {
		return v, true, false, nil
	}
	err = tx.Stmt(s.headGet).QueryRow(room).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, true, nil
	}
	if err != nil {
		return 0, false, false, err
	}
	s.txHeads[room] = v
	return v, true, true, nil
}

// check says whether a may follow its room's head: nil, ErrNotFound or
// ErrConflict (refused), or err when the head could not be read. A
// refusal made on the writer's cache is made again on the log's head.
func (s *Store) check(tx *sql.Tx, a *store.Action) (refused, err error) {
	v, ok, exact, err := s.headOf(tx, a.Room)
	if err != nil {
		return nil, err
	}
	if !exact && a.Version != v+1 {
		s.forget(a.Room)
		if v, ok, _, err = s.headOf(tx, a.Room); err != nil {
			return nil, err
		}
	}
	switch {
	case !ok:
		return store.ErrNotFound, nil
	case a.Version != v+1:
		return store.ErrConflict, nil
	}
	return nil, nil
}

// forget drops what the writer holds of room's head: the next check reads
// it from the log.
func (s *Store) forget(room string) {
	delete(s.heads, room)
	delete(s.txHeads, room)
}

// fatal is a request's error that leaves the transaction in a state no
// request may commit: the writer rolls the whole batch back.
type fatal struct{ err error }

func (f *fatal) Error() string { return f.err.Error() }
func (f *fatal) Unwrap() error { return f.err }

// abort rolls the batch's transaction back and fails every request of it.
// The writer's heads are dropped: a failure may leave them unsure.
func (s *Store) abort(tx *sql.Tx, batch []*request, err error) {
	tx.Rollback()
	clear(s.heads)
	for _, r := range batch {
		r.res <- err
	}
}

// write hands fn to the writer and waits for its durable result. Once the
// request is queued it is not abandoned on ctx's end: the caller waits for
// the commit, so that "returned an error" never hides "was committed".
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.send(ctx, &request{ctx: detach(ctx), fn: fn, res: make(chan error, 1)})
}

func (s *Store) send(ctx context.Context, r *request) error {
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return errors.New("store is closed")
	}
	select {
	case s.reqs <- r:
	case <-ctx.Done():
		s.mu.RUnlock()
		return ctx.Err()
	}
	s.mu.RUnlock()
	return <-r.res
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
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.Exec(`INSERT INTO rooms(id, variant, options, seats, rules_version, created, touched, version)
			VALUES (?, ?, ?, ?, ?, ?, ?, 0) ON CONFLICT(id) DO NOTHING`,
			r.ID, r.Variant, string(opts), r.Seats, r.RulesVersion, r.Created.UnixNano(), r.Touched.UnixNano())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrExists
		}
		if _, err = tx.Exec(`INSERT INTO seats(room, seat, key_hash) VALUES (?, 0, ?)`, r.ID, hostKeyHash); err != nil {
			return err
		}
		delete(s.txGone, r.ID)
		s.forget(r.ID) // its head is read from the log at its first append
		return nil
	})
}

// appendRowsSQL adds n actions to the log, their values bound in order
// (logColumns each). A few statements for a whole group instead of one per
// action: the statement's fixed cost (cursors, database/sql) was most of
// an append's, and binding the values costs less than reading them out of
// one JSON argument (the load test's profile: SQLite's JSON functions took
// 5% of the host's CPU).
func appendRowsSQL(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO log(room, version, kind, seat, move, at) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`(?,?,?,?,?,?)`)
	}
	return b.String()
}

// rowsStmts is how many appendRowsSQL statements are prepared: for 1, 2,
// 4, … 64 rows. A group of n is appended 64 at a time, then by the binary
// digits of what is left.
const rowsStmts = 7

// logColumns is how many values appendRowsSQL binds per action.
const logColumns = 6

// appendMany adds the plain appends batch[i] for i in idx, in that order,
// each checked against its room's head as the batch has moved it
// (ErrNotFound, ErrConflict), in a few statements. When the log refuses
// one of a statement's rows (what the writer held was not the file's),
// SQLite undoes that statement, and every append of idx not yet in the log
// is decided again on heads read from the log, one at a time (appendEach):
// the refused ones are conflicts, the others go on. An error it returns
// leaves the transaction unfit to commit.
func (s *Store) appendMany(tx *sql.Tx, batch []*request, idx []int, results []error) error {
	args := s.args[:0]
	todo := s.todo[:0] // the requests args holds, in order
	for _, i := range idx {
		a := batch[i].act
		refused, err := s.check(tx, a)
		if err != nil {
			return err
		}
		if refused != nil {
			results[i] = refused
			continue
		}
		args = append(args, a.Room, a.Version, a.Kind, int64(a.Seat), a.Move, a.At.UnixNano())
		todo = append(todo, i)
		s.txHeads[a.Room] = a.Version
	}
	clear(args[len(args):cap(args)]) // the last batch's, held no longer than needed
	s.args, s.todo = args, todo
	done := 0 // how many of todo are in the log
	for k := rowsStmts - 1; k >= 0; k-- {
		rows := 1 << k
		for len(todo)-done >= rows {
			res, err := tx.Stmt(s.insertRows[k]).Exec(args[logColumns*done : logColumns*(done+rows)]...)
			if refusedByLog(err) {
				var again []int
				in := todo[:done] // in the log: a subsequence of idx
				for _, i := range idx {
					if len(in) > 0 && in[0] == i {
						in = in[1:]
						continue
					}
					results[i] = nil
					again = append(again, i)
				}
				return s.appendEach(tx, batch, again, results)
			}
			if err != nil {
				return err
			}
			if added, _ := res.RowsAffected(); added != int64(rows) {
				return fmt.Errorf("appended %d actions of %d", added, rows)
			}
			done += rows
		}
	}
	return nil
}

// appendEach adds the plain appends batch[i] for i in idx one at a time,
// each on its room's head read from the log (the batch holds the write
// lock: what it reads is exact).
func (s *Store) appendEach(tx *sql.Tx, batch []*request, idx []int, results []error) error {
	for _, i := range idx {
		s.forget(batch[i].act.Room)
	}
	for _, i := range idx {
		a := batch[i].act
		refused, err := s.check(tx, a)
		if err != nil {
			return err
		}
		if refused == nil {
			if refused, err = s.insert(tx, a); err != nil {
				return err
			}
		}
		results[i] = refused
	}
	return nil
}

// insert adds one action to the log: ErrConflict when the log refuses it
// (the room's head is then forgotten), err when it fails otherwise.
func (s *Store) insert(tx *sql.Tx, a *store.Action) (refused, err error) {
	_, err = tx.Stmt(s.insertRows[0]).Exec(a.Room, a.Version, a.Kind, int64(a.Seat), a.Move, a.At.UnixNano())
	if refusedByLog(err) {
		s.forget(a.Room)
		return store.ErrConflict, nil
	}
	if err != nil {
		return nil, err
	}
	s.txHeads[a.Room] = a.Version
	return nil, nil
}

// SQLite's extended result codes for a UNIQUE constraint and a trigger's
// RAISE(ABORT) that refused a row.
const (
	sqliteConstraintUnique  = 2067 // SQLITE_CONSTRAINT_UNIQUE
	sqliteConstraintTrigger = 1811 // SQLITE_CONSTRAINT_TRIGGER
)

// notNext is what log_follows (migration 4) says when it refuses an action.
const notNext = "log: not the next version of an existing room"

// refusedByLog: err is SQLite refusing an action: its version is taken
// (log_room_version), or it does not follow its room's last action
// (log_follows). Any other failure is not a refusal.
func refusedByLog(err error) bool {
	var e interface{ Code() int }
	if !errors.As(err, &e) {
		return false
	}
	return e.Code() == sqliteConstraintUnique || e.Code() == sqliteConstraintTrigger && strings.Contains(err.Error(), notNext)
}

// detach is ctx without its cancellation (a request once sent is carried
// out: its caller may stop waiting, the writer does not), and ctx itself
// when it has none to drop (a room's moves: one allocation less each).
func detach(ctx context.Context) context.Context {
	if ctx.Done() == nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}

// Append implements store.Store.
func (s *Store) Append(ctx context.Context, a store.Action) error {
	r := appends.Get().(*request)
	r.ctx, r.action = detach(ctx), a
	r.act = &r.action
	if a.KeyHash != nil {
		r.act, r.fn = nil, s.appendOne(a)
	}
	err := s.send(ctx, r)
	*r = request{res: r.res} // (send returns with res empty: its result taken, or never sent)
	appends.Put(r)
	return err
}

// appendOne is the request function of an append that appendMany does not
// take: its log row and its seat's key hash (in the request's savepoint,
// which a refusal or a failure rolls back).
func (s *Store) appendOne(a store.Action) func(tx *sql.Tx) error {
	return func(tx *sql.Tx) error {
		refused, err := s.check(tx, &a)
		if err != nil {
			return err
		}
		if refused != nil {
			return refused
		}
		if refused, err := s.insert(tx, &a); err != nil {
			return err
		} else if refused != nil {
			return refused
		}
		if _, err := tx.Exec(`INSERT INTO seats(room, seat, key_hash) VALUES (?, ?, ?)
			ON CONFLICT(room, seat) DO UPDATE SET key_hash = excluded.key_hash`, a.Room, a.Seat, a.KeyHash); err != nil {
			s.forget(a.Room) // the savepoint takes the row back
			return err
		}
		return nil
	}
}

// Touch implements store.Store.
func (s *Store) Touch(ctx context.Context, id string, at time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE rooms SET touched = ? WHERE id = ?`, at.UnixNano(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return store.ErrNotFound
		}
		return nil
	})
}

// purgeSQL deletes the rooms whose last touch and last action are both
// before the cutoff (the index on touched finds the candidates, the log's
// index each one's last action); their seats go with them, and Purge then
// deletes their logs.
const purgeSQL = `DELETE FROM rooms WHERE touched < ?1
	AND IFNULL((SELECT at FROM log WHERE room = rooms.id ORDER BY version DESC LIMIT 1), 0) < ?1
	RETURNING id`

// roomSQL reads a room: its version is its last action's, its touch time
// the later of the row's (creation, Touch) and the last action's. The
// rooms.version column of the first schema is no longer written.
const roomSQL = `SELECT variant, options, seats, rules_version, created, touched, IFNULL(l.version, 0), IFNULL(l.at, 0)
	FROM rooms LEFT JOIN log AS l ON l.seq = (SELECT seq FROM log WHERE room = ?1 ORDER BY version DESC LIMIT 1)
	WHERE rooms.id = ?1`

// Purge implements store.Store. Any failure rolls the whole batch back (a
// request of one statement, see request.single).
func (s *Store) Purge(ctx context.Context, cutoff time.Time) ([]string, error) {
	var ids []string
	r := &request{ctx: detach(ctx), res: make(chan error, 1), single: true}
	r.fn = func(tx *sql.Tx) error {
		ids = ids[:0]
		rows, err := tx.Query(purgeSQL, cutoff.UnixNano())
		if err != nil {
			return &fatal{err}
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return &fatal{err}
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return &fatal{err}
		}
		for _, id := range ids {
			if _, err := tx.Exec(`DELETE FROM log WHERE room = ?`, id); err != nil {
				return &fatal{err}
			}
			s.txGone[id] = true
			delete(s.txHeads, id)
		}
		return nil
	}
	err := s.send(ctx, r)
	return ids, err
}

// Room implements store.Store.
func (s *Store) Room(ctx context.Context, id string) (store.Room, error) {
	r := store.Room{ID: id}
	var opts string
	var created, touched, at int64
	err := s.r.QueryRowContext(ctx, roomSQL, id).
		Scan(&r.Variant, &opts, &r.Seats, &r.RulesVersion, &created, &touched, &r.Version, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return r, store.ErrNotFound
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal([]byte(opts), &r.Options); err != nil {
		return r, fmt.Errorf("room %s options: %w", id, err)
	}
	r.Created, r.Touched = time.Unix(0, created), time.Unix(0, max(touched, at))
	return r, nil
}

// SeatKeys implements store.Store.
func (s *Store) SeatKeys(ctx context.Context, id string) ([]store.SeatKey, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT seat, key_hash FROM seats WHERE room = ? ORDER BY seat`, id)
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
	rows, err := s.r.QueryContext(ctx, `SELECT version, kind, seat, move, at FROM log WHERE room = ?1 AND version > ?2 ORDER BY version`, id, after)
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
