package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
)

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
