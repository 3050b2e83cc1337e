package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/internal/store/storetest"
)

// TestStore runs the suite every store shows; its stores on one database
// are stores opened on one file, as two processes would.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T, n int) []store.Store {
		path := filepath.Join(t.TempDir(), "rooms.db")
		var ss []store.Store
		for range n {
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			ss = append(ss, s)
		}
		return ss
	})
}

// TestReopen: what was appended is there after closing and reopening the
// file, and the migrations are not applied twice.
func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rooms.db")
	ctx := context.Background()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(100, 0)
	if err := s.CreateRoom(ctx, store.Room{ID: "r", Variant: "v", Seats: 2, Created: now, Touched: now}, []byte("h")); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, store.Action{Room: "r", Version: 1, Kind: "move", Move: "a1", At: now}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, store.Action{Room: "r", Version: 2, Kind: "move", At: now}); err == nil {
		t.Error("Append after Close succeeded")
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	acts, err := s.Actions(ctx, "r", 0)
	if err != nil || len(acts) != 1 || acts[0].Move != "a1" {
		t.Fatalf("after reopen: %+v, %v", acts, err)
	}
	var n int
	if err := s.r.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(migrations)-1 {
		t.Errorf("schema_migrations has %d rows (%v), want %d", n, err, len(migrations)-1)
	}
	var mode string
	if err := s.w.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var syncMode int
	if err := s.w.QueryRow(`PRAGMA synchronous`).Scan(&syncMode); err != nil || syncMode != 2 {
		t.Errorf("synchronous = %d, %v; want 2 (FULL)", syncMode, err)
	}
}

// TestGroupCommit: concurrent appends of different rooms share transactions
// (fewer commits than appends), which is what makes a busy host cheap.
func TestGroupCommit(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const rooms = 64
	for i := range rooms {
		if err := s.CreateRoom(ctx, store.Room{ID: fmt.Sprint(i), Variant: "v", Seats: 2}, []byte("h")); err != nil {
			t.Fatal(err)
		}
	}
	// Hold the writer inside a transaction until every append is queued.
	gate, release := make(chan struct{}), make(chan struct{})
	go s.write(ctx, func(*sql.Tx) error { close(gate); <-release; return nil })
	<-gate
	var wg sync.WaitGroup
	for i := range rooms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Append(ctx, store.Action{Room: fmt.Sprint(i), Version: 1, Kind: "move", Move: "m"}); err != nil {
				t.Error(err)
			}
		}()
	}
	for len(s.reqs) < rooms {
		runtime.Gosched() // until every append is queued
	}
	before := s.commits.Load()
	close(release)
	wg.Wait()
	if n := s.commits.Load() - before; n > 2 {
		t.Errorf("%d queued appends took %d commits, want them grouped (≤ 2)", rooms, n)
	}
}

// BenchmarkAppendParallel: durable appends from many rooms at once, the
// load group commit is for (each append waits for its commit): 1000 rooms
// with ids as long as real ones. cpu-µs/op is the process's CPU (user and
// system) per append, which ns/op (the wall time) does not show.
func BenchmarkAppendParallel(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "rooms.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var next atomic.Int64
	b.SetParallelism(500)
	cpu := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		id := fmt.Sprintf("room-%017d", next.Add(1)) // 22 characters, as a real id
		if err := s.CreateRoom(ctx, store.Room{ID: id, Variant: "v", Seats: 2}, []byte("h")); err != nil {
			b.Error(err)
			return
		}
		v := int64(0)
		for pb.Next() {
			v++
			if err := s.Append(ctx, store.Action{Room: id, Version: v, Kind: "move", Seat: int(v % 2), Move: "7g7f", At: time.Unix(0, v)}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(processCPU()-cpu)/float64(time.Microsecond)/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(b.N)/float64(max(1, s.commits.Load())), "appends/commit")
}

// processCPU is this process's user and system time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestAppendTouchesThroughTheLog: an append writes the actions table only,
// and the room's version and touch time are read from its log: Purge keeps
// a room whose row is old but whose last action is recent, and a conflict
// or a failed append in a batch leaves the others of that batch.
func TestAppendTouchesThroughTheLog(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	t0 := time.Unix(1000, 0)
	for _, id := range []string{"a", "b"} {
		if err := s.CreateRoom(ctx, store.Room{ID: id, Variant: "v", Seats: 2, Created: t0, Touched: t0}, []byte("h")); err != nil {
			t.Fatal(err)
		}
	}
	later := t0.Add(time.Hour)
	if err := s.Append(ctx, store.Action{Room: "a", Version: 1, Kind: "move", Move: "x", At: later}); err != nil {
		t.Fatal(err)
	}
	var rowTouched, rowVersion int64
	if err := s.r.QueryRow(`SELECT touched, version FROM rooms WHERE id = 'a'`).Scan(&rowTouched, &rowVersion); err != nil {
		t.Fatal(err)
	}
	if rowTouched != t0.UnixNano() || rowVersion != 0 {
		t.Errorf("the append wrote the rooms row: touched %d version %d", rowTouched, rowVersion)
	}
	r, err := s.Room(ctx, "a")
	if err != nil || r.Version != 1 || !r.Touched.Equal(later) {
		t.Fatalf("Room = version %d touched %v (%v); want 1 and the action's time", r.Version, r.Touched, err)
	}
	ids, err := s.Purge(ctx, t0.Add(time.Minute))
	if err != nil || len(ids) != 1 || ids[0] != "b" {
		t.Fatalf("Purge = %v, %v; want only b (a's last action is after the cutoff)", ids, err)
	}
	// Two appends of the same version at once: exactly one lands, and a
	// gap is refused.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Append(ctx, store.Action{Room: "a", Version: 2, Kind: "move", Move: fmt.Sprint(i), At: later})
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("two appends of version 2: %v, %v; want exactly one", errs[0], errs[1])
	}
	if err := s.Append(ctx, store.Action{Room: "a", Version: 4, Kind: "move", At: later}); err != store.ErrConflict {
		t.Fatalf("a gap: %v, want ErrConflict", err)
	}
	if r, _ := s.Room(ctx, "a"); r.Version != 2 {
		t.Fatalf("version %d, want 2", r.Version)
	}
}

// TestCommitDelay: a quiet store commits at once; under load the writer
// waits twice as long as the last commit took, never less than minDelay
// nor more than maxDelay.
func TestCommitDelay(t *testing.T) {
	for _, c := range []struct {
		prev int
		last time.Duration
		want time.Duration
	}{
		{0, time.Millisecond, 0},
		{1, time.Millisecond, 0},
		{groupAt - 1, time.Millisecond, 0},
		{groupAt, 700 * time.Microsecond, minDelay},
		{groupAt, 1700 * time.Microsecond, 3400 * time.Microsecond},
		{maxBatch, time.Second, maxDelay},
	} {
		if got := commitDelay(c.prev, c.last); got != c.want {
			t.Errorf("commitDelay(%d, %v) = %v, want %v", c.prev, c.last, got, c.want)
		}
	}
}

// TestMigrateActionsToLog: a database made by the first schema (actions
// keyed by room and version) keeps its rooms, seat keys and logs when
// migration 2 moves the actions into the log, and appends go on from
// each room's last version.
func TestMigrateActionsToLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rooms.db")
	old, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY) STRICT`,
		migrations[1],
		`INSERT INTO schema_migrations(version) VALUES (1)`,
		`INSERT INTO rooms(id, variant, options, seats, rules_version, created, touched) VALUES
			('a', 'shogi', '{"x":"1"}', 2, 'v1', 10, 20), ('b', 'xiangqi', '{}', 2, '', 30, 40), ('empty', 'shogi', '{}', 2, '', 50, 60)`,
		`INSERT INTO seats(room, seat, key_hash) VALUES ('a', 0, x'01'), ('a', 1, x'02'), ('b', 0, x'03'), ('empty', 0, x'04')`,
		// Interleaved as a busy host writes them.
		`INSERT INTO actions(room, version, kind, seat, move, at) VALUES
			('a', 1, 'move', 0, '7g7f', 100), ('b', 1, 'move', 0, 'h2e2', 101), ('a', 2, 'move', 1, '3c3d', 102),
			('b', 2, 'claim', 1, '', 103), ('a', 3, 'resign', 0, '', 104)`,
	} {
		if _, err := old.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	old.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, c := range []struct {
		id      string
		version int64
		touched int64
		moves   []string
	}{
		{"a", 3, 104, []string{"1 move 0 7g7f 100", "2 move 1 3c3d 102", "3 resign 0  104"}},
		{"b", 2, 103, []string{"1 move 0 h2e2 101", "2 claim 1  103"}},
		{"empty", 0, 60, nil},
	} {
		r, err := s.Room(ctx, c.id)
		if err != nil || r.Version != c.version || r.Touched.UnixNano() != c.touched {
			t.Errorf("Room(%s) = version %d touched %d (%v); want %d and %d", c.id, r.Version, r.Touched.UnixNano(), err, c.version, c.touched)
		}
		acts, err := s.Actions(ctx, c.id, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range acts {
			got = append(got, fmt.Sprint(a.Version, " ", a.Kind, " ", a.Seat, " ", a.Move, " ", a.At.UnixNano()))
		}
		if fmt.Sprint(got) != fmt.Sprint(c.moves) {
			t.Errorf("Actions(%s) = %q, want %q", c.id, got, c.moves)
		}
	}
	if keys, err := s.SeatKeys(ctx, "a"); err != nil || len(keys) != 2 || keys[1].Hash[0] != 2 {
		t.Errorf("SeatKeys(a) = %v, %v", keys, err)
	}
	if err := s.Append(ctx, store.Action{Room: "a", Version: 3, Kind: "move", At: time.Unix(0, 200)}); err != store.ErrConflict {
		t.Errorf("append of a taken version after the migration: %v, want ErrConflict", err)
	}
	if err := s.Append(ctx, store.Action{Room: "a", Version: 4, Kind: "move", Move: "2g2f", At: time.Unix(0, 200)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, store.Action{Room: "empty", Version: 1, Kind: "move", Move: "x", At: time.Unix(0, 201)}); err != nil {
		t.Fatal(err)
	}
	if acts, _ := s.Actions(ctx, "a", 2); len(acts) != 2 || acts[1].Move != "2g2f" {
		t.Errorf("Actions(a, 2) after an append = %+v", acts)
	}
	var n int
	if err := s.r.QueryRow(`SELECT COUNT(*) FROM sqlite_schema WHERE name = 'actions'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("the actions table is still there (%d, %v)", n, err)
	}
	// Purge walks each room's log back from its head.
	if ids, err := s.Purge(ctx, time.Unix(0, 150)); err != nil || fmt.Sprint(ids) != "[b]" {
		t.Errorf("Purge = %v, %v; want [b]", ids, err)
	}
	if err := s.r.QueryRow(`SELECT COUNT(*) FROM log WHERE room = 'b'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("b's log has %d rows after its purge (%v)", n, err)
	}
	if err := s.r.QueryRow(`SELECT COUNT(*) FROM log`).Scan(&n); err != nil || n != 5 {
		t.Errorf("the log has %d rows, want a's 4 and empty's 1 (%v)", n, err)
	}
}

// BenchmarkActions: a room's whole log (160 actions) read back, as a room
// is loaded, in a store where 100 rooms wrote their actions in turn.
func BenchmarkActions(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "rooms.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const rooms, plies = 100, 160
	for i := range rooms {
		if err := s.CreateRoom(ctx, store.Room{ID: fmt.Sprintf("room-%017d", i), Variant: "v", Seats: 2}, []byte("h")); err != nil {
			b.Fatal(err)
		}
	}
	for v := int64(1); v <= plies; v++ {
		var wg sync.WaitGroup
		for i := range rooms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.Append(ctx, store.Action{Room: fmt.Sprintf("room-%017d", i), Version: v, Kind: "move", Move: "7g7f", At: time.Unix(0, v)}); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		acts, err := s.Actions(ctx, fmt.Sprintf("room-%017d", i%rooms), 0)
		if err != nil || len(acts) != plies {
			b.Fatal(len(acts), err)
		}
	}
}

// TestAppendManyInOneBatch: the plain appends of one batch go in a few
// multi-row statements (appendMany), and each still gets its own
// answer: two rooms appended twice in the same batch (the second in a
// later round), a duplicate version (exactly one wins), a gap, an unknown
// room, and move texts of every kind (quotes, control characters, invalid
// UTF-8), stored exactly.
func TestAppendManyInOneBatch(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	createRooms(t, s, "a", "b", `q"\r`, "é")
	texts := []string{`7g7f`, `say "hi" \ bye`, "日本 ☗", "tab\there", "bad\xffutf8", "nul\x00", ""}
	type want struct {
		a   store.Action
		err error // nil, ErrConflict, ErrNotFound; or errAny: nil or ErrConflict
	}
	errAny := errors.New("one of two")
	var reqs []want
	for i, m := range texts {
		reqs = append(reqs, want{store.Action{Room: "b", Version: int64(i + 1), Kind: "move", Seat: i % 2, Move: m, At: time.Unix(0, int64(1e18)+int64(i))}, nil})
	}
	reqs = append(reqs,
		want{store.Action{Room: "a", Version: 1, Kind: "move", Move: "x"}, errAny},
		want{store.Action{Room: "a", Version: 1, Kind: "move", Move: "y"}, errAny},
		want{store.Action{Room: "a", Version: 3, Kind: "move", Move: "gap"}, store.ErrConflict},
		want{store.Action{Room: "nope", Version: 1, Kind: "move"}, store.ErrNotFound},
		want{store.Action{Room: `q"\r`, Version: 1, Kind: `k"\`, Move: "m"}, nil},
		want{store.Action{Room: "é", Version: 1, Kind: "move", Move: "m", KeyHash: []byte("k")}, nil},
	)
	gate, release := make(chan struct{}), make(chan struct{})
	go s.write(ctx, func(*sql.Tx) error { close(gate); <-release; return nil })
	<-gate
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	// b's appends are queued in order, one after the other: each names the
	// version the one before it creates, all in the same batch.
	for i, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Append(ctx, r.a)
		}()
		for len(s.reqs) < i+1 {
			runtime.Gosched()
		}
	}
	before := s.commits.Load()
	close(release)
	wg.Wait()
	if n := s.commits.Load() - before; n > 2 {
		t.Errorf("%d commits (the gate's and the appends'), want the appends in one", n)
	}
	won := 0
	for i, r := range reqs {
		switch {
		case r.err == errAny && (errs[i] == nil || errs[i] == store.ErrConflict):
			if errs[i] == nil {
				won++
			}
		case errs[i] != r.err:
			t.Errorf("append %+v: %v, want %v", r.a, errs[i], r.err)
		}
	}
	if won != 1 {
		t.Errorf("%d of two appends of a's version 1 won, want 1", won)
	}
	acts, err := s.Actions(ctx, "b", 0)
	if err != nil || len(acts) != len(texts) {
		t.Fatalf("b has %d actions (%v), want %d", len(acts), err, len(texts))
	}
	for i, a := range acts {
		if a.Move != texts[i] || a.Seat != i%2 || a.At.UnixNano() != int64(1e18)+int64(i) || a.Version != int64(i+1) {
			t.Errorf("b's action %d = %+v, want move %q", i, a, texts[i])
		}
	}
	for _, id := range []string{"a", `q"\r`, "é"} {
		if r, err := s.Room(ctx, id); err != nil || r.Version != 1 {
			t.Errorf("Room(%q) = version %d, %v; want 1", id, r.Version, err)
		}
	}
	if acts, _ := s.Actions(ctx, `q"\r`, 0); len(acts) != 1 || acts[0].Kind != `k"\` {
		t.Errorf(`Actions(q"\r) = %+v`, acts)
	}
}

// TestGroupCommitWritesFewPages: one commit of an append to each of 100
// rooms, each with a log of 40 actions, writes the actions to a few pages
// (the log's last ones), not a page per room as a log kept sorted by room
// did. The log's unique index on (room, version), the database's guard,
// is sorted by room: its frames are at most one per leaf of the index.
func TestGroupCommitWritesFewPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rooms.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const rooms, plies = 100, 40
	id := func(i int) string { return fmt.Sprintf("room-%017d", i) }
	for i := range rooms {
		if err := s.CreateRoom(ctx, store.Room{ID: id(i), Variant: "v", Seats: 2}, []byte("h")); err != nil {
			t.Fatal(err)
		}
	}
	appendAll := func(v int64) {
		var wg sync.WaitGroup
		for i := range rooms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.Append(ctx, store.Action{Room: id(i), Version: v, Kind: "move", Move: "7g7f", At: time.Unix(0, v)}); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	for v := int64(1); v <= plies; v++ {
		appendAll(v)
	}
	// Empty the WAL, then one batch: the WAL's size is then its frames.
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var busy, frames, done int
	if err := db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil || busy != 0 {
		t.Fatalf("checkpoint: busy %d, %v", busy, err)
	}
	gate, release := make(chan struct{}), make(chan struct{})
	go s.write(ctx, func(*sql.Tx) error { close(gate); <-release; return nil })
	<-gate
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); appendAll(plies + 1) }()
	for len(s.reqs) < rooms {
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	var pageSize int64
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	const walHeader, frameHeader = 32, 24
	n := (fi.Size() - walHeader) / (frameHeader + pageSize)
	// Which table or index each frame's page belongs to.
	owner := map[int64]string{}
	leaves := 0 // the index's
	rows, err := db.Query(`SELECT pageno, name, pagetype FROM dbstat`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var page int64
		var name, kind string
		if err := rows.Scan(&page, &name, &kind); err != nil {
			t.Fatal(err)
		}
		owner[page] = name
		if name == "log_room_version" && kind == "leaf" {
			leaves++
		}
	}
	rows.Close()
	wal, err := os.ReadFile(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	index, other := 0, 0
	for off := int64(walHeader); off+frameHeader <= int64(len(wal)); off += frameHeader + pageSize {
		page := int64(wal[off])<<24 | int64(wal[off+1])<<16 | int64(wal[off+2])<<8 | int64(wal[off+3])
		if owner[page] == "log_room_version" {
			index++
		} else {
			other++
		}
	}
	t.Logf("%d appends of %d rooms: %d WAL frames, %d of the index (of its %d leaves), %d others", rooms, rooms, n, index, leaves, other)
	if other < 1 || other > rooms/4 {
		t.Errorf("the commit wrote %d WAL frames besides the index's, want a few (≤ %d), not one per room", other, rooms/4)
	}
	if index > leaves+2 {
		t.Errorf("the commit wrote %d frames of the index, more than its %d leaves and a few interior pages", index, leaves)
	}
}

// TestFailedInsertRollsTheBatchBack: when a group's INSERT fails, the
// whole batch is rolled back and every append in it gets the error: none
// is reported done, the writer's heads are read from the log again, and
// the rooms take the same appends once the fault is gone. (A temporary
// trigger on the writer's connection makes the INSERT fail for room c.)
func TestFailedInsertRollsTheBatchBack(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	createRooms(t, s, "a", "b", "c")
	if err := s.Append(ctx, store.Action{Room: "a", Version: 1, Kind: "move", Move: "first"}); err != nil {
		t.Fatal(err)
	}
	poison(t, s, `CREATE TEMP TRIGGER poison BEFORE INSERT ON main.log WHEN NEW.room = 'c'
			BEGIN SELECT RAISE(ABORT, 'poisoned log'); END`)
	acts := []store.Action{
		{Room: "a", Version: 2, Kind: "move", Move: "second"},
		{Room: "b", Version: 1, Kind: "move", Move: "first"},
		{Room: "c", Version: 1, Kind: "move", Move: "first"},
	}
	appendAll := func() []error {
		gate, release := make(chan struct{}), make(chan struct{})
		go s.write(ctx, func(*sql.Tx) error { close(gate); <-release; return nil })
		<-gate
		errs := make([]error, len(acts))
		var wg sync.WaitGroup
		for i, a := range acts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = s.Append(ctx, a)
			}()
			for len(s.reqs) < i+1 {
				runtime.Gosched()
			}
		}
		close(release)
		wg.Wait()
		return errs
	}
	for i, err := range appendAll() {
		if err == nil || errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) {
			t.Errorf("append %d in the failed batch: %v, want the insert's error", i, err)
		}
	}
	for id, want := range map[string]int{"a": 1, "b": 0, "c": 0} {
		got, err := s.Actions(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != want {
			t.Errorf("room %s holds %d actions after the failed batch, want %d", id, len(got), want)
		}
	}
	var rows int
	if err := s.r.QueryRow(`SELECT COUNT(*) FROM log`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 1 {
		t.Errorf("the log holds %d rows, want 1 (the batch's inserts rolled back)", rows)
	}
	if err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`DROP TRIGGER temp.poison`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for i, err := range appendAll() {
		if err != nil {
			t.Errorf("append %d once the fault is gone: %v", i, err)
		}
	}
	for id, want := range map[string]int{"a": 2, "b": 1, "c": 1} {
		if got, _ := s.Actions(ctx, id, 0); len(got) != want {
			t.Errorf("room %s holds %d actions, want %d", id, len(got), want)
		}
	}
}

// TestReopenAfterACrash: after a crash the rooms read and take appends as
// if nothing happened, from the log alone. The crash is a copy of the
// database and its WAL taken while the writer waits inside a transaction
// (what a SIGKILL leaves: every commit, nothing of the open transaction).
func TestReopenAfterACrash(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(filepath.Join(dir, "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	createRooms(t, s, "a", "b", "idle")
	play := func(room string, v int64) {
		t.Helper()
		if err := s.Append(ctx, store.Action{Room: room, Version: v, Kind: "move", Move: fmt.Sprintf("%s%d", room, v), At: time.Unix(0, v)}); err != nil {
			t.Fatal(err)
		}
	}
	play("a", 1)
	play("a", 2)
	play("b", 1)
	play("a", 3)
	play("a", 4)
	play("b", 2)
	play("b", 3)
	if r, err := s.Room(ctx, "b"); err != nil || r.Version != 3 {
		t.Fatalf("Room(b) before the crash: version %d, %v; want 3", r.Version, err)
	}
	crash := t.TempDir()
	gate, release := make(chan struct{}), make(chan struct{})
	go s.write(ctx, func(*sql.Tx) error { close(gate); <-release; return nil })
	<-gate
	for _, name := range []string{"rooms.db", "rooms.db-wal"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(crash, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	close(release)

	c, err := Open(filepath.Join(crash, "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for room, want := range map[string]int64{"a": 4, "b": 3, "idle": 0} {
		r, err := c.Room(ctx, room)
		if err != nil || r.Version != want {
			t.Errorf("Room(%s) after the crash: version %d, %v; want %d", room, r.Version, err, want)
		}
		acts, err := c.Actions(ctx, room, 0)
		if err != nil || int64(len(acts)) != want {
			t.Fatalf("Actions(%s) after the crash: %d, %v; want %d", room, len(acts), err, want)
		}
		for i, a := range acts {
			if a.Version != int64(i+1) || a.Move != fmt.Sprintf("%s%d", room, i+1) {
				t.Errorf("%s's action %d: %+v", room, i, a)
			}
		}
	}
	if err := c.Append(ctx, store.Action{Room: "b", Version: 3, Kind: "move"}); err != store.ErrConflict {
		t.Errorf("a replayed append after the crash: %v, want ErrConflict", err)
	}
	if err := c.Append(ctx, store.Action{Room: "b", Version: 4, Kind: "move", Move: "b4"}); err != nil {
		t.Errorf("the next append after the crash: %v", err)
	}
	if acts, _ := c.Actions(ctx, "b", 2); len(acts) != 2 || acts[1].Move != "b4" {
		t.Errorf("b's actions after version 2: %+v", acts)
	}
}

// createRooms creates rooms of two seats with the given ids.
func createRooms(t testing.TB, s *Store, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := s.CreateRoom(context.Background(), store.Room{ID: id, Variant: "v", Seats: 2}, []byte("h")); err != nil {
			t.Fatal(err)
		}
	}
}

// poison creates a temporary trigger on the writer's connection, to make
// some of its statements fail.
func poison(t testing.TB, s *Store, trigger string) {
	t.Helper()
	if err := s.write(context.Background(), func(tx *sql.Tx) error {
		_, err := tx.Exec(trigger)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// TestLogRefusesWhatTheHeadsLetThrough: the writer's heads are a fast path,
// not the arbiter. With them wrong (a bug: one room's behind the file,
// one's ahead), a group commit's duplicate version and gap are refused by
// the log and answered ErrConflict, an append they would refuse is taken
// on the log's head, and the others of the same batch are committed.
func TestLogRefusesWhatTheHeadsLetThrough(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	createRooms(t, s, "a", "b", "c")
	for _, a := range []store.Action{{Room: "a", Version: 1}, {Room: "a", Version: 2}, {Room: "b", Version: 1}} {
		a.Kind, a.Move = "move", fmt.Sprint(a.Room, a.Version)
		if err := s.Append(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.write(ctx, func(*sql.Tx) error {
		s.heads["a"], s.heads["b"] = 1, 5 // a is at 2, b at 1
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	acts := []struct {
		a    store.Action
		want error
	}{
		{store.Action{Room: "a", Version: 2, Kind: "move", Move: "a2 again"}, store.ErrConflict},
		{store.Action{Room: "b", Version: 6, Kind: "move", Move: "b6"}, store.ErrConflict},
		{store.Action{Room: "c", Version: 1, Kind: "move", Move: "c1"}, nil},
		{store.Action{Room: "b", Version: 2, Kind: "move", Move: "b2"}, nil},
		{store.Action{Room: "a", Version: 3, Kind: "move", Move: "a3"}, nil},
	}
	gate, release := make(chan struct{}), make(chan struct{})
	go s.write(ctx, func(*sql.Tx) error { close(gate); <-release; return nil })
	<-gate
	errs := make([]error, len(acts))
	var wg sync.WaitGroup
	for i, a := range acts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Append(ctx, a.a)
		}()
		for len(s.reqs) < i+1 {
			runtime.Gosched()
		}
	}
	before := s.commits.Load()
	close(release)
	wg.Wait()
	if n := s.commits.Load() - before; n > 2 {
		t.Errorf("%d commits (the gate's and the appends'), want the appends in one", n)
	}
	for i, a := range acts {
		if errs[i] != a.want {
			t.Errorf("append %s %d: %v, want %v", a.a.Room, a.a.Version, errs[i], a.want)
		}
	}
	for room, want := range map[string]string{"a": "[a1 a2 a3]", "b": "[b1 b2]", "c": "[c1]"} {
		acts, err := s.Actions(ctx, room, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range acts {
			got = append(got, a.Move)
		}
		if fmt.Sprint(got) != want {
			t.Errorf("room %s: %v, want %s", room, got, want)
		}
	}
	// The heads are right again: the next appends go through the fast path.
	for _, a := range []store.Action{{Room: "a", Version: 4}, {Room: "b", Version: 3}} {
		if err := s.Append(ctx, a); err != nil {
			t.Errorf("append %s %d: %v", a.Room, a.Version, err)
		}
	}
}

// TestLogRefusesAnyWriter: the log itself refuses a second action at a
// room's version, a gap and an action of no room, whoever writes it (here a
// connection of its own, not the store).
func TestLogRefusesAnyWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rooms.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	createRooms(t, s, "a")
	if err := s.Append(ctx, store.Action{Room: "a", Version: 1, Kind: "move", Move: "a1"}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct {
		room    string
		version int64
		why     string
	}{{"a", 1, "a taken version"}, {"a", 3, "a gap"}, {"nope", 1, "no room"}} {
		_, err := db.Exec(`INSERT INTO log(room, version, kind, seat, move, at) VALUES (?, ?, 'move', 0, 'x', 0)`, c.room, c.version)
		if !refusedByLog(err) {
			t.Errorf("%s (%s %d) inserted by hand: %v, want the log to refuse it", c.why, c.room, c.version, err)
		}
	}
	if _, err := db.Exec(`INSERT INTO log(room, version, kind, seat, move, at) VALUES ('a', 2, 'move', 0, 'a2', 0)`); err != nil {
		t.Fatalf("the next version inserted by hand: %v", err)
	}
	if err := s.Append(ctx, store.Action{Room: "a", Version: 2, Kind: "move"}); err != store.ErrConflict {
		t.Errorf("the store appends a version another writer took: %v, want ErrConflict", err)
	}
	if err := s.Append(ctx, store.Action{Room: "a", Version: 3, Kind: "move", Move: "a3"}); err != nil {
		t.Errorf("the store appends after another writer: %v", err)
	}
}

// TestMigrationRefusesTwiceWrittenVersions: a log at schema 3 that holds
// a room's version twice (what migration 4's index forbids from then on)
// is not migrated: Open fails and says which, and the file keeps every
// row and its schema.
func TestMigrationRefusesTwiceWrittenVersions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rooms.db")
	old, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY) STRICT`,
		migrations[1], migrations[2], migrations[3],
		`INSERT INTO schema_migrations(version) VALUES (1), (2), (3)`,
		`INSERT INTO rooms(id, variant, options, seats, rules_version, created, touched) VALUES ('a', 'shogi', '{}', 2, '', 10, 20)`,
		`INSERT INTO heads(room, version, last, at) VALUES ('a', 2, 3, 102)`,
		`INSERT INTO log(seq, room, version, prev, kind, seat, move, at) VALUES
			(1, 'a', 1, 0, 'move', 0, '7g7f', 100), (2, 'a', 2, 1, 'move', 1, '3c3d', 101), (3, 'a', 2, 1, 'move', 1, '8c8d', 102)`,
	} {
		if _, err := old.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	old.Close()
	s, err := Open(path)
	if err == nil {
		s.Close()
		t.Fatal("Open migrated a log holding a version twice")
	}
	for _, want := range []string{"migration 4", `room "a" version 2, 2 rows`, "nothing was changed"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open's error %q does not say %q", err, want)
		}
	}
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var rows, schema, heads int
	if err := raw.QueryRow(`SELECT (SELECT COUNT(*) FROM log), (SELECT MAX(version) FROM schema_migrations), (SELECT COUNT(*) FROM heads)`).
		Scan(&rows, &schema, &heads); err != nil || rows != 3 || schema != 3 || heads != 1 {
		t.Errorf("after the refused migration: %d log rows, schema %d, %d heads (%v); want 3, 3, 1", rows, schema, heads, err)
	}
}

// TestHeadsDroppedWhenAnotherWrites: a store's cached heads last only while
// no other connection writes the file: after a second store's commit, the
// first one's next batch starts with none.
func TestHeadsDroppedWhenAnotherWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rooms.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	createRooms(t, a, "r")
	if err := a.Append(ctx, store.Action{Room: "r", Version: 1, Kind: "move"}); err != nil {
		t.Fatal(err)
	}
	held := func() (n int) {
		t.Helper()
		if err := a.write(ctx, func(*sql.Tx) error { n = len(a.heads); return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := held(); n != 1 {
		t.Fatalf("a holds %d heads after its append, want 1", n)
	}
	if err := b.Append(ctx, store.Action{Room: "r", Version: 2, Kind: "move"}); err != nil {
		t.Fatal(err)
	}
	if n := held(); n != 0 {
		t.Errorf("a holds %d heads after b wrote the file, want none", n)
	}
	if err := a.Append(ctx, store.Action{Room: "r", Version: 3, Kind: "move"}); err != nil {
		t.Errorf("a appends after b: %v", err)
	}
}

// raceChildEnv names the file a child process of
// TestTwoProcessesRaceOneRoom appends to.
const raceChildEnv = "BANMEN_SQLITE_RACE_CHILD"

// TestTwoProcessesRaceOneRoom: two processes (this test binary run twice)
// open one file and race writers to append each next version of one room,
// released together once both have opened it. Every version is won
// exactly once, every loser hears ErrConflict, and the log has no duplicate
// and no gap.
func TestTwoProcessesRaceOneRoom(t *testing.T) {
	if path := os.Getenv(raceChildEnv); path != "" {
		raceChild(t, path)
		return
	}
	const versions = 80
	path := filepath.Join(t.TempDir(), "rooms.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	createRooms(t, s, "r")
	type child struct {
		cmd   *exec.Cmd
		out   strings.Builder
		start io.WriteCloser
	}
	var children [2]*child
	for i := range children {
		c := &child{cmd: exec.Command(os.Args[0], "-test.run=^TestTwoProcessesRaceOneRoom$", "-test.count=1")}
		c.cmd.Env = append(os.Environ(), raceChildEnv+"="+path, fmt.Sprintf("BANMEN_SQLITE_RACE_VERSIONS=%d", versions))
		c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
		if c.start, err = c.cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children[i] = c
	}
	for _, c := range children {
		c.start.Close() // the start: each child waits for the end of its stdin
	}
	winner := map[int64]string{}
	conflicts := 0
	for i, c := range children {
		if err := c.cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, c.out.String())
		}
		for _, line := range strings.Split(c.out.String(), "\n") {
			var v int64
			var move string
			var n int
			switch {
			case strings.HasPrefix(line, "won "):
				if _, err := fmt.Sscan(line[len("won "):], &v, &move); err != nil {
					t.Fatalf("child %d: %q: %v", i, line, err)
				}
				if winner[v] != "" {
					t.Errorf("version %d won twice: %s and %s", v, winner[v], move)
				}
				winner[v] = move
			case strings.HasPrefix(line, "conflicts "):
				fmt.Sscan(line[len("conflicts "):], &n)
				conflicts += n
			}
		}
	}
	t.Logf("%d versions won, %d conflicts", len(winner), conflicts)
	if len(winner) != versions {
		t.Errorf("%d versions won, want %d", len(winner), versions)
	}
	acts, err := s.Actions(context.Background(), "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != versions {
		t.Errorf("the log holds %d actions, want %d", len(acts), versions)
	}
	for j, a := range acts {
		if a.Version != int64(j+1) || a.Move != winner[a.Version] {
			t.Errorf("action %d = version %d %q, want version %d %q", j, a.Version, a.Move, j+1, winner[int64(j+1)])
		}
	}
}

// raceChild is one process of TestTwoProcessesRaceOneRoom: it opens the
// file, waits for the end of its stdin, races four writers to the last
// version, and prints each version it won and how many conflicts it met.
func raceChild(t *testing.T, path string) {
	versions, err := strconv.ParseInt(os.Getenv("BANMEN_SQLITE_RACE_VERSIONS"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	io.Copy(io.Discard, os.Stdin)
	ctx := context.Background()
	var mu sync.Mutex
	conflicts := 0
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := int64(1); v <= versions; {
				move := fmt.Sprintf("p%d.w%d@%d", os.Getpid(), w, v)
				err := s.Append(ctx, store.Action{Room: "r", Version: v, Kind: "move", Seat: w, Move: move})
				switch {
				case err == nil:
					mu.Lock()
					fmt.Printf("won %d %s\n", v, move)
					mu.Unlock()
					v++
				case errors.Is(err, store.ErrConflict):
					mu.Lock()
					conflicts++
					mu.Unlock()
					r, err := s.Room(ctx, "r")
					if err != nil {
						t.Error(err)
						return
					}
					v = max(v+1, r.Version+1)
				default:
					t.Errorf("writer %d appending version %d: %v, want nil or ErrConflict", w, v, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	fmt.Printf("conflicts %d\n", conflicts)
}
