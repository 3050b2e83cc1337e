// Package sqlite is the embedded store of rooms: one SQLite file in WAL mode
// with synchronous=FULL, written by one connection through one goroutine that
// commits the appends of many rooms in one transaction (group commit), and
// read through a small pool of reader connections.
//
// The log is kept in commit order (table log, by seq), each action pointing
// at its room's previous one, and each room's version, last action and its
// time are a row of heads: a group commit then dirties the log's last pages
// and a few pages of heads, not a page per room, and a group's plain
// appends are one INSERT and one UPDATE (appendMany). A room's actions are
// read by walking back from its head.
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
	savepoint, release, insert, head *sql.Stmt
	// The writer's scratch space for appendMany, kept between batches.
	plain, round                  []int
	seen                          map[string]struct{}
	rows                          []byte
	insertMany, headMany, lastSeq *sql.Stmt
}

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
	s := &Store{w: w, r: r, reqs: make(chan *request, maxBatch), done: make(chan struct{}), seen: map[string]struct{}{}}
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&s.savepoint, `SAVEPOINT req`},
		{&s.release, `RELEASE req`},
		{&s.insert, appendSQL},
		{&s.head, headSQL},
		{&s.insertMany, appendManySQL},
		{&s.headMany, headManySQL},
		{&s.lastSeq, `SELECT COALESCE(MAX(seq), 0) FROM log`},
	} {
		if *p.st, err = w.Prepare(p.sql); err != nil {
			w.Close()
			r.Close()
			return nil, fmt.Errorf("prepare %q: %w", p.sql, err)
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
// twice as long as one commit takes, up to maxDelay. A commit's cost is
// mostly fixed (its pages and system calls), so bigger groups cost less
// per append: at 1000 rooms and ~12,000 moves/s a commit takes ~1.7 ms,
// and waiting twice that rather than once took the writer's CPU from ~11
// to ~9.5 µs per append, for ~4 ms more on a move's round trip.
func commitDelay(prev int, last time.Duration) time.Duration {
	if prev < groupAt {
		return 0
	}
	return min(2*last, maxDelay)
}

const (
	groupAt  = 4
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
		for _, r := range batch {
			r.res <- fmt.Errorf("commit: %w", err)
		}
		return
	}
	s.commits.Add(1)
	for i, r := range batch {
		r.res <- results[i]
	}
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
		_, err = tx.Exec(`INSERT INTO seats(room, seat, key_hash) VALUES (?, 0, ?)`, r.ID, hostKeyHash)
		return err
	})
}

// appendSQL adds an action to the log when the room's head is at the
// version before a.Version; the row points at the room's previous action
// (the head's last). headSQL then moves the head to it.
const (
	appendSQL = `INSERT INTO log(room, version, prev, kind, seat, move, at)
	SELECT ?1, ?2, last, ?3, ?4, ?5, ?6 FROM heads WHERE room = ?1 AND version = ?2 - 1`
	headSQL = `UPDATE heads SET version = ?2, last = last_insert_rowid(), at = ?3 WHERE room = ?1`
)

// appendManySQL is appendSQL for many actions at once, given as one JSON
// array of [room, version, kind, seat, move, at] (of different rooms), each
// row with its own seq above ?2 in the array's order; headManySQL then moves
// the heads of the rooms it added to. (The room and version are taken from
// the head they matched, so that each is extracted from the JSON once; the
// seq says the order, so the rows may go in any.) One statement for a whole group
// instead of one per action: the statement's fixed cost (binding, cursors,
// database/sql) was most of an append's.
const (
	appendManySQL = `INSERT INTO log(seq, room, version, prev, kind, seat, move, at)
	SELECT ?2 + 1 + j.key, heads.room, heads.version + 1, heads.last, j.value->>2, j.value->>3, j.value->>4, j.value->>5
	FROM jsonb_each(?1) AS j JOIN heads ON heads.room = j.value->>0 AND heads.version = (j.value->>1) - 1`
	headManySQL = `UPDATE heads SET version = n.version, last = n.seq, at = n.at
	FROM (SELECT room, version, seq, at FROM log WHERE seq > ?1) AS n
	WHERE heads.room = n.room AND heads.version = n.version - 1`
)

// appendMany adds the plain appends batch[i] for i in idx: in rounds of
// one append per room (a second append of a room in the same batch goes in
// the next round, after the first has moved the head), each round one
// appendManySQL and one headManySQL. An error it returns leaves the
// transaction unfit to commit.
func (s *Store) appendMany(tx *sql.Tx, batch []*request, idx []int, results []error) error {
	for len(idx) > 0 {
		// rest keeps in idx's own array, behind the one being read, the
		// appends left for the next round.
		round, rest := s.round[:0], idx[:0]
		clear(s.seen)
		b := append(s.rows[:0], '[')
		for _, i := range idx {
			a := batch[i].act
			if _, dup := s.seen[a.Room]; dup {
				rest = append(rest, i)
				continue
			}
			s.seen[a.Room] = struct{}{}
			if len(round) > 0 {
				b = append(b, ',')
			}
			b = appendRow(b, a)
			round = append(round, i)
		}
		b = append(b, ']')
		s.rows, s.round = b, round
		var last int64
		if err := tx.Stmt(s.lastSeq).QueryRow().Scan(&last); err != nil {
			return err
		}
		res, err := tx.Stmt(s.insertMany).Exec(b, last)
		if err != nil {
			return err
		}
		added, _ := res.RowsAffected()
		if res, err = tx.Stmt(s.headMany).Exec(last); err != nil {
			return err
		}
		if moved, _ := res.RowsAffected(); moved != added {
			return fmt.Errorf("appended %d actions but moved %d heads", added, moved)
		}
		if int(added) < len(round) {
			if err := s.refused(tx, batch, round, last, results); err != nil {
				return err
			}
		}
		idx = rest
	}
	return nil
}

// refused sets the results of the appends of a round that were not added
// (those whose room has no row above seq last): ErrNotFound or ErrConflict.
func (s *Store) refused(tx *sql.Tx, batch []*request, round []int, last int64, results []error) error {
	rows, err := tx.Query(`SELECT room FROM log WHERE seq > ?`, last)
	if err != nil {
		return err
	}
	added := map[string]bool{}
	for rows.Next() {
		var room string
		if err := rows.Scan(&room); err != nil {
			rows.Close()
			return err
		}
		added[room] = true
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, i := range round {
		if room := batch[i].act.Room; !added[room] {
			results[i] = roomRefusal(tx, room)
		}
	}
	return nil
}

// roomRefusal is why an append to room was not added: ErrNotFound when
// the room does not exist, else ErrConflict.
func roomRefusal(tx *sql.Tx, room string) error {
	var one int
	if err := tx.QueryRow(`SELECT 1 FROM rooms WHERE id = ?`, room).Scan(&one); errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	} else if err != nil {
		return err
	}
	return store.ErrConflict
}

// appendRow appends a's row of appendManySQL's JSON array to b.
func appendRow(b []byte, a *store.Action) []byte {
	b = appendJSONString(append(b, '['), a.Room)
	b = strconv.AppendInt(append(b, ','), a.Version, 10)
	b = appendJSONString(append(b, ','), a.Kind)
	b = strconv.AppendInt(append(b, ','), int64(a.Seat), 10)
	b = appendJSONString(append(b, ','), a.Move)
	b = strconv.AppendInt(append(b, ','), a.At.UnixNano(), 10)
	return append(b, ']')
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
// through appendJSONString and SQLite's JSON functions unchanged. An
// action with other text is appended on its own (as one with a key hash).
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
	if a.KeyHash != nil || !jsonSafe(a.Room) || !jsonSafe(a.Kind) || !jsonSafe(a.Move) {
		r.act, r.fn, r.single = nil, s.appendOne(a), a.KeyHash == nil
	}
	err := s.send(ctx, r)
	*r = request{res: r.res} // (send returns with res empty: its result taken, or never sent)
	appends.Put(r)
	return err
}

// appendOne is the request function of an append that appendMany does not
// take: its log row and head, and its seat's key hash when it has one (in
// the request's savepoint).
func (s *Store) appendOne(a store.Action) func(tx *sql.Tx) error {
	return func(tx *sql.Tx) error {
		res, err := tx.Stmt(s.insert).Exec(a.Room, a.Version, a.Kind, a.Seat, a.Move, a.At.UnixNano())
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return roomRefusal(tx, a.Room)
		}
		if _, err := tx.Stmt(s.head).Exec(a.Room, a.Version, a.At.UnixNano()); err != nil {
			return &fatal{err}
		}
		if a.KeyHash == nil {
			return nil
		}
		_, err = tx.Exec(`INSERT INTO seats(room, seat, key_hash) VALUES (?, ?, ?)
			ON CONFLICT(room, seat) DO UPDATE SET key_hash = excluded.key_hash`, a.Room, a.Seat, a.KeyHash)
		return err
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
const roomSQL = `SELECT variant, options, seats, rules_version, created, MAX(touched, heads.at), heads.version
	FROM rooms JOIN heads ON heads.room = rooms.id WHERE id = ?1`

// actionsSQL reads a room's actions after a version: back from its head
// along prev, then in order. A row's prev is always below its seq (a new
// row's seq is above every row's), which also bounds the walk.
const actionsSQL = `WITH RECURSIVE chain(seq, version, kind, seat, move, at, prev) AS (
		SELECT log.seq, log.version, log.kind, log.seat, log.move, log.at, log.prev
		FROM heads JOIN log ON log.seq = heads.last WHERE heads.room = ?1 AND log.version > ?2
		UNION ALL
		SELECT log.seq, log.version, log.kind, log.seat, log.move, log.at, log.prev
		FROM chain JOIN log ON log.seq = chain.prev WHERE chain.prev < chain.seq AND log.version > ?2)
	SELECT version, kind, seat, move, at FROM chain ORDER BY version`

// Purge implements store.Store.
func (s *Store) Purge(ctx context.Context, cutoff time.Time) ([]string, error) {
	var ids []string
	err := s.write(ctx, func(tx *sql.Tx) error {
		ids = ids[:0]
		if _, err := tx.Exec(purgeLogSQL, cutoff.UnixNano()); err != nil {
			return err
		}
		rows, err := tx.Query(purgeSQL, cutoff.UnixNano())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	return ids, err
}

// Room implements store.Store.
func (s *Store) Room(ctx context.Context, id string) (store.Room, error) {
	r := store.Room{ID: id}
	var opts string
	var created, touched int64
	err := s.r.QueryRowContext(ctx, roomSQL, id).
		Scan(&r.Variant, &opts, &r.Seats, &r.RulesVersion, &created, &touched, &r.Version)
	if errors.Is(err, sql.ErrNoRows) {
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
	rows, err := s.r.QueryContext(ctx, actionsSQL, id, after)
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
	for _, st := range []*sql.Stmt{s.savepoint, s.release, s.insert, s.head, s.insertMany, s.headMany, s.lastSeq} {
		st.Close()
	}
	return errors.Join(s.r.Close(), s.w.Close())
}
