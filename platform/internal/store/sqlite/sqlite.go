// Package sqlite is the embedded store of rooms: one SQLite file in WAL mode
// with synchronous=FULL, written by one connection through one goroutine that
// commits the appends of many rooms in one transaction (group commit), and
// read through a small pool of reader connections.
//
// The log is kept in commit order (table log, by seq), each action pointing
// at its room's previous one: a group commit dirties the log's last pages,
// not a page per room, and a group's plain appends are a few multi-row
// INSERTs (appendMany). A room's actions are read by walking back from its
// head: its version, last action and that action's time.
//
// The writer keeps the heads of the rooms it appends to in memory and
// arbitrates there (an append must name the version after its room's
// head); it writes them to table heads about once a second (flush), with
// the log's seq they are complete up to (table heads_seq). Open rolls the
// heads forward from the log rows above that mark, so a crash between two
// flushes loses no head: the log is the truth, the table a checkpoint.
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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

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
	savepoint, release, headGet, flushMany, flushOne, mark *sql.Stmt
	// insertRows[k] appends 1<<k actions (appendRowsSQL); [0] one alone.
	insertRows [rowsStmts]*sql.Stmt
	// The writer's scratch space, kept between batches.
	plain []int
	rows  []byte
	args  []any

	// The heads the writer knows (see the package comment). heads holds
	// committed ones: those not yet flushed to the table (dirty) and
	// those read from it or written by the last flush (clean, dropped at
	// the next one unless moved before it; see committed). Only the
	// writer changes it, under hmu; readers take them under hmu.RLock.
	hmu   sync.RWMutex
	heads map[string]headEntry
	// The batch's own, dropped when it does not commit: the heads it read
	// or moved, the rooms it purged, the last seq it gave, whether it
	// flushed.
	txHeads   map[string]headEntry
	txGone    map[string]bool
	txSeq     int64
	txFlushed bool
	// seq is the last committed log row's; flushed when the heads were
	// last flushed; stale that a commit failed, so seq and the heads may
	// lag behind the file (reread at the next batch, see catchUp).
	seq     int64
	flushed time.Time
	stale   bool
}

// head is a room's head: its version, its last action's seq (0: none) and
// time (UnixNano).
type head struct{ version, last, at int64 }

// headEntry is a head the writer holds, dirty when the table's row lags.
type headEntry struct {
	head
	dirty bool
}

// flushEvery is how often the writer writes its dirty heads to the table,
// and flushAt how many heads it holds before it flushes anyway (memory).
const (
	flushEvery = time.Second
	flushAt    = 1 << 14
)

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
		heads: map[string]headEntry{}, txHeads: map[string]headEntry{}, txGone: map[string]bool{}}
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&s.savepoint, `SAVEPOINT req`},
		{&s.release, `RELEASE req`},
		{&s.headGet, `SELECT version, last, at FROM heads WHERE room = ?`},
		{&s.flushMany, flushManySQL},
		{&s.flushOne, `UPDATE heads SET version = ?2, last = ?3, at = ?4 WHERE room = ?1`},
		{&s.mark, `UPDATE heads_seq SET seq = ?`},
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
	if s.seq, err = rollForward(w); err != nil {
		s.closeStmts()
		w.Close()
		r.Close()
		return nil, fmt.Errorf("roll the heads of %s forward: %w", path, err)
	}
	s.flushed = time.Now()
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

// rollForwardSQL moves each room's head in the table to its last log row
// above the mark (the rows appended since the last flush).
const rollForwardSQL = `UPDATE heads SET version = n.version, last = n.seq, at = n.at
	FROM (SELECT room, version, seq, at FROM log
		WHERE seq IN (SELECT MAX(seq) FROM log WHERE seq > ?1 GROUP BY room)) AS n
	WHERE heads.room = n.room`

// rollForward brings table heads up to the log (what a crash left between
// two flushes) and returns the log's last seq.
func rollForward(db *sql.DB) (int64, error) {
	tx, err := db.Begin()
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var mark, last int64
	if err := tx.QueryRow(`SELECT seq FROM heads_seq`).Scan(&mark); err != nil {
		return 0, err
	}
	if err := tx.QueryRow(`SELECT COALESCE(MAX(seq), 0) FROM log`).Scan(&last); err != nil {
		return 0, err
	}
	if last == mark {
		return last, nil
	}
	if _, err := tx.Exec(rollForwardSQL, mark); err != nil {
		return 0, err
	}
	if _, err := tx.Exec(`UPDATE heads_seq SET seq = ?`, last); err != nil {
		return 0, err
	}
	return last, tx.Commit()
}

func (s *Store) closeStmts() {
	for _, st := range append([]*sql.Stmt{s.savepoint, s.release, s.headGet, s.flushMany, s.flushOne, s.mark}, s.insertRows[:]...) {
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
	s.flushLast()
}

// flushLast writes the dirty heads at Close, so that the next Open has
// nothing to roll forward (it would, were this to fail).
func (s *Store) flushLast() {
	dirty := false
	for _, e := range s.heads {
		dirty = dirty || e.dirty
	}
	if !dirty {
		return
	}
	tx, err := s.w.Begin()
	if err != nil {
		return
	}
	s.begin()
	if err := s.flush(tx); err != nil {
		tx.Rollback()
		return
	}
	tx.Commit()
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
	s.begin()
	if s.stale {
		if err := s.catchUp(tx); err != nil {
			s.abort(tx, batch, fmt.Errorf("reread the heads after a failed commit: %w", err))
			return
		}
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
	if time.Since(s.flushed) >= flushEvery || len(s.heads)+len(s.txHeads) >= flushAt {
		// In a savepoint: a flush that fails leaves the batch's appends to
		// commit (the heads stay dirty, for the next flush).
		if _, err := tx.Exec(`SAVEPOINT flush`); err == nil {
			if err := s.flush(tx); err != nil {
				if _, err := tx.Exec(`ROLLBACK TO flush`); err != nil {
					s.abort(tx, batch, fmt.Errorf("rollback to savepoint: %w", err))
					return
				}
			}
			tx.Exec(`RELEASE flush`)
		}
	}
	if err := tx.Commit(); err != nil {
		// The commit may have reached the file or not: reread the log's
		// end before the next batch.
		s.stale = true
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

// begin starts a batch's view of the heads: nothing of its own yet.
func (s *Store) begin() {
	clear(s.txHeads)
	clear(s.txGone)
	s.txSeq, s.txFlushed = s.seq, false
}

// committed makes the batch's heads the writer's, once its transaction
// has committed (and before any of its requests hears back). After a
// flush every head held is in the table: those it wrote are kept, clean
// (their rooms are playing: rereading each from the table after every
// flush cost more than the flush), and those already clean before it
// are dropped (rooms quiet for a whole interval), which bounds the map by
// the rooms active in the last two intervals.
func (s *Store) committed() {
	s.hmu.Lock()
	if s.txFlushed {
		for room, e := range s.heads {
			if !e.dirty {
				delete(s.heads, room)
				continue
			}
			e.dirty = false
			s.heads[room] = e
		}
	}
	for room, e := range s.txHeads {
		s.heads[room] = e
	}
	for room := range s.txGone {
		delete(s.heads, room)
	}
	s.hmu.Unlock()
	s.seq = s.txSeq
	if s.txFlushed {
		s.flushed = time.Now()
	}
}

// catchUp rereads the log's end after a commit that failed (and may have
// reached the file all the same): the rows above the last seq the writer
// knows are its rooms' heads, dirty until the next flush.
func (s *Store) catchUp(tx *sql.Tx) error {
	rows, err := tx.Query(`SELECT room, version, seq, at FROM log
		WHERE seq IN (SELECT MAX(seq) FROM log WHERE seq > ?1 GROUP BY room)`, s.seq)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var room string
		var h head
		if err := rows.Scan(&room, &h.version, &h.last, &h.at); err != nil {
			return err
		}
		s.txHeads[room] = headEntry{h, true}
		s.txSeq = max(s.txSeq, h.last)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	s.stale = false // (set again if this batch fails to commit)
	return nil
}

// headOf is room's head as the batch sees it, ok false when the room does
// not exist.
func (s *Store) headOf(tx *sql.Tx, room string) (h head, ok bool, err error) {
	if s.txGone[room] {
		return head{}, false, nil
	}
	if e, ok := s.txHeads[room]; ok {
		return e.head, true, nil
	}
	if e, ok := s.heads[room]; ok {
		return e.head, true, nil
	}
	err = tx.Stmt(s.headGet).QueryRow(room).Scan(&h.version, &h.last, &h.at)
	if errors.Is(err, sql.ErrNoRows) {
		return head{}, false, nil
	}
	if err != nil {
		return head{}, false, err
	}
	s.txHeads[room] = headEntry{h, false}
	return h, true, nil
}

// flushManySQL writes heads given as one JSON array of [room, version,
// last, at].
const flushManySQL = `UPDATE heads SET version = j.value->>1, last = j.value->>2, at = j.value->>3
	FROM jsonb_each(?1) AS j WHERE heads.room = j.value->>0`

// flush writes every dirty head, the writer's and the batch's, to the
// table, and marks the table complete up to the batch's last seq.
func (s *Store) flush(tx *sql.Tx) error {
	b := append(s.rows[:0], '[')
	var odd []string // rooms JSON cannot carry as they are, written one by one
	put := func(room string, h head) {
		if !jsonSafe(room) {
			odd = append(odd, room)
			return
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = appendJSONString(append(b, '['), room)
		b = strconv.AppendInt(append(b, ','), h.version, 10)
		b = strconv.AppendInt(append(b, ','), h.last, 10)
		b = strconv.AppendInt(append(b, ','), h.at, 10)
		b = append(b, ']')
	}
	for room, e := range s.heads {
		if _, mine := s.txHeads[room]; e.dirty && !mine && !s.txGone[room] {
			put(room, e.head)
		}
	}
	for room, e := range s.txHeads {
		if e.dirty {
			put(room, e.head)
		}
	}
	b = append(b, ']')
	s.rows = b
	if len(b) > 2 {
		if _, err := tx.Stmt(s.flushMany).Exec(b); err != nil {
			return err
		}
	}
	for _, room := range odd {
		h, _, err := s.headOf(tx, room)
		if err != nil {
			return err
		}
		if _, err := tx.Stmt(s.flushOne).Exec(room, h.version, h.last, h.at); err != nil {
			return err
		}
	}
	if _, err := tx.Stmt(s.mark).Exec(s.txSeq); err != nil {
		return err
	}
	for room, e := range s.txHeads {
		e.dirty = false
		s.txHeads[room] = e
	}
	s.txFlushed = true
	return nil
}

// fatal is a request's error that leaves the transaction in a state no
// request may commit: the writer rolls the whole batch back.
type fatal struct{ err error }

func (f *fatal) Error() string { return f.err.Error() }
func (f *fatal) Unwrap() error { return f.err }

// abort rolls the batch's transaction back and fails every request of it.
func (s *Store) abort(tx *sql.Tx, batch []*request, err error) {
	tx.Rollback()
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
		if _, err := tx.Exec(`INSERT INTO heads(room, version, last, at) VALUES (?, 0, 0, 0)`, r.ID); err != nil {
			return err
		}
		if _, err = tx.Exec(`INSERT INTO seats(room, seat, key_hash) VALUES (?, 0, ?)`, r.ID, hostKeyHash); err != nil {
			return err
		}
		delete(s.txGone, r.ID)
		s.txHeads[r.ID] = headEntry{}
		return nil
	})
}

// appendRowsSQL adds n actions to the log, each with its seq and its prev
// (the room's last action's seq), their values bound in order (logColumns
// each). A few statements for a whole group instead of one per action: the
// statement's fixed cost (cursors, database/sql) was most of an append's,
// and binding the values costs less than reading them out of one JSON
// argument (the load test's profile: SQLite's JSON functions took 5% of
// the host's CPU).
func appendRowsSQL(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO log(seq, room, version, prev, kind, seat, move, at) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`(?,?,?,?,?,?,?,?)`)
	}
	return b.String()
}

// rowsStmts is how many appendRowsSQL statements are prepared: for 1, 2,
// 4, … 64 rows. A group of n is appended 64 at a time, then by the binary
// digits of what is left.
const rowsStmts = 7

// logColumns is how many values appendRowsSQL binds per action.
const logColumns = 8

// appendMany adds the plain appends batch[i] for i in idx, in that order,
// each arbitrated against its room's head as the batch has moved it
// (ErrNotFound, ErrConflict), in a few statements. An error it returns leaves
// the transaction unfit to commit.
func (s *Store) appendMany(tx *sql.Tx, batch []*request, idx []int, results []error) error {
	args := s.args[:0]
	for _, i := range idx {
		a := batch[i].act
		h, ok, err := s.headOf(tx, a.Room)
		switch {
		case err != nil:
			return err
		case !ok:
			results[i] = store.ErrNotFound
			continue
		case a.Version != h.version+1:
			results[i] = store.ErrConflict
			continue
		}
		s.txSeq++
		args = append(args, s.txSeq, a.Room, a.Version, h.last, a.Kind, int64(a.Seat), a.Move, a.At.UnixNano())
		s.txHeads[a.Room] = headEntry{head{a.Version, s.txSeq, a.At.UnixNano()}, true}
	}
	clear(args[len(args):cap(args)]) // the last batch's, held no longer than needed
	s.args = args
	for k := rowsStmts - 1; k >= 0; k-- {
		rows := 1 << k
		for len(args) >= logColumns*rows {
			res, err := tx.Stmt(s.insertRows[k]).Exec(args[:logColumns*rows]...)
			if err != nil {
				return err
			}
			if added, _ := res.RowsAffected(); added != int64(rows) {
				return fmt.Errorf("appended %d actions of %d", added, rows)
			}
			args = args[logColumns*rows:]
		}
	}
	return nil
}

// appendJSONString appends s as a JSON string; s must be jsonSafe.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b = append(b, '\\', c)
		} else {
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// jsonSafe: s is valid UTF-8 without control characters, so that it goes
// through appendJSONString and SQLite's JSON functions unchanged. A head
// of a room with another id is flushed on its own.
func jsonSafe(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return false
		}
	}
	return true
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
// take: its log row, and its seat's key hash when it has one (in the
// request's savepoint). The batch's head moves once both are written.
func (s *Store) appendOne(a store.Action) func(tx *sql.Tx) error {
	return func(tx *sql.Tx) error {
		h, ok, err := s.headOf(tx, a.Room)
		switch {
		case err != nil:
			return err
		case !ok:
			return store.ErrNotFound
		case a.Version != h.version+1:
			return store.ErrConflict
		}
		seq := s.txSeq + 1
		if _, err := tx.Stmt(s.insertRows[0]).Exec(seq, a.Room, a.Version, h.last, a.Kind, a.Seat, a.Move, a.At.UnixNano()); err != nil {
			return err
		}
		if a.KeyHash != nil {
			if _, err := tx.Exec(`INSERT INTO seats(room, seat, key_hash) VALUES (?, ?, ?)
			ON CONFLICT(room, seat) DO UPDATE SET key_hash = excluded.key_hash`, a.Room, a.Seat, a.KeyHash); err != nil {
				return err
			}
		}
		s.txSeq = seq
		s.txHeads[a.Room] = headEntry{head{a.Version, seq, a.At.UnixNano()}, true}
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

// purgeLogSQL deletes the log of the rooms purgeSQL is about to delete,
// walking each one's actions back from its head; purgeSQL then deletes the
// rooms (their heads and seats go with them).
const purgeLogSQL = `WITH RECURSIVE doomed(seq) AS (
		SELECT heads.last FROM rooms JOIN heads ON heads.room = rooms.id
		WHERE rooms.touched < ?1 AND heads.at < ?1 AND heads.last > 0
		UNION ALL
		SELECT log.prev FROM doomed JOIN log ON log.seq = doomed.seq WHERE log.prev > 0 AND log.prev < log.seq)
	DELETE FROM log WHERE seq IN doomed`

// purgeSQL deletes the rooms whose last touch and last action are both
// before the cutoff (the index on touched finds the candidates).
const purgeSQL = `DELETE FROM rooms WHERE touched < ?1
	AND (SELECT at FROM heads WHERE room = rooms.id) < ?1
	RETURNING id`

// roomSQL reads a room: its version is its head's, its touch time the
// later of the row's (creation, Touch) and the last action's. The
// rooms.version column of the first schema is no longer written.
const roomSQL = `SELECT variant, options, seats, rules_version, created, touched, heads.version, heads.at
	FROM rooms JOIN heads ON heads.room = rooms.id WHERE id = ?1`

// actionsSQL reads a room's actions after a version: back from its head
// (the writer's, version ?3 at seq ?4, when newer than the table's) along
// prev, then in order. A row's prev is always below its seq (a new
// row's seq is above every row's), which also bounds the walk.
const actionsSQL = `WITH RECURSIVE chain(seq, version, kind, seat, move, at, prev) AS (
		SELECT log.seq, log.version, log.kind, log.seat, log.move, log.at, log.prev
		FROM heads JOIN log ON log.seq = (CASE WHEN ?3 > heads.version THEN ?4 ELSE heads.last END)
		WHERE heads.room = ?1 AND log.version > ?2
		UNION ALL
		SELECT log.seq, log.version, log.kind, log.seat, log.move, log.at, log.prev
		FROM chain JOIN log ON log.seq = chain.prev WHERE chain.prev < chain.seq AND log.version > ?2)
	SELECT version, kind, seat, move, at FROM chain ORDER BY version`

// Purge implements store.Store. It flushes the heads first (the queries
// read them from the table), in the same transaction; any failure after
// that rolls the whole batch back (a request of one statement, see
// request.single), which leaves the heads dirty.
func (s *Store) Purge(ctx context.Context, cutoff time.Time) ([]string, error) {
	var ids []string
	r := &request{ctx: detach(ctx), res: make(chan error, 1), single: true}
	r.fn = func(tx *sql.Tx) error {
		ids = ids[:0]
		if err := s.flush(tx); err != nil {
			return &fatal{err}
		}
		if _, err := tx.Exec(purgeLogSQL, cutoff.UnixNano()); err != nil {
			return &fatal{err}
		}
		rows, err := tx.Query(purgeSQL, cutoff.UnixNano())
		if err != nil {
			return &fatal{err}
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return &fatal{err}
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			return &fatal{err}
		}
		for _, id := range ids {
			s.txGone[id] = true
			delete(s.txHeads, id)
		}
		return nil
	}
	err := s.send(ctx, r)
	return ids, err
}

// pending is the writer's head of room when it holds one (a reader takes
// it before its query, then the newer of it and the table's).
func (s *Store) pending(room string) (head, bool) {
	s.hmu.RLock()
	e, ok := s.heads[room]
	s.hmu.RUnlock()
	return e.head, ok
}

// Room implements store.Store.
func (s *Store) Room(ctx context.Context, id string) (store.Room, error) {
	r := store.Room{ID: id}
	h, held := s.pending(id)
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
	if held && h.version > r.Version {
		r.Version, at = h.version, h.at
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
	h, held := s.pending(id)
	if !held {
		h.version = -1
	}
	rows, err := s.r.QueryContext(ctx, actionsSQL, id, after, h.version, h.last)
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
