package faulttest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/platform/faulttest"
	"github.com/banmen/banmen/platform/internal/pgtest"
	"github.com/banmen/banmen/sdk"
	"github.com/jackc/pgx/v5"
)

// The tests of several hosts on one PostgreSQL (store: postgres): real
// hosts as subprocesses, the two players of each room on different hosts.

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// clusterStateKey is the state key the hosts of one store share.
const clusterStateKey = "faulttest-cluster-state-key-0123456789"

// startPG runs a host on the PostgreSQL database dsn; its connections
// carry the application name name.
func startPG(t *testing.T, dsn, name string) *faulttest.Host {
	t.Helper()
	return start(t, t.TempDir(), "-store", "postgres", "-store_dsn", dsn+" application_name="+name, "-limits.host_heartbeat", "1s", "-state_key", clusterStateKey)
}

// endSessions waits until the database sessions of the host named name are
// over. A killed host's statement in flight still commits if it was under
// way (the server notices the lost client only when it answers): until its
// sessions end, the log may still grow by that one action.
func endSessions(ctx context.Context, t *testing.T, dsn, name string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// pg_terminate_backend with a timeout returns once the session is gone
	// (false for one that ended meanwhile, or did not end: counted after).
	for try := 0; ; try++ {
		if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend(pid, 30000) FROM pg_stat_activity WHERE application_name = $1`, name); err != nil {
			t.Fatal(err)
		}
		var left int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, name).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			return
		}
		if try == 10 {
			t.Fatalf("%d sessions of host %s do not end", left, name)
		}
	}
}

// dbLog is a room's version and moves as the database has them.
func dbLog(ctx context.Context, t *testing.T, dsn, room string) (int64, []sdk.Move) {
	t.Helper()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v int64
	if err := conn.QueryRow(ctx, `SELECT version FROM rooms WHERE id = $1`, room).Scan(&v); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `SELECT move FROM actions WHERE room = $1 AND kind = 'move' ORDER BY version`, room)
	if err != nil {
		t.Fatal(err)
	}
	moves, err := pgx.CollectRows(rows, pgx.RowTo[sdk.Move])
	if err != nil {
		t.Fatal(err)
	}
	return v, moves
}

// newSplitGame is a shogi room created on a, its host's seat played on a
// and the guest's on b; it returns once both players see both seats
// connected (moves wait for that).
func newSplitGame(ctx context.Context, t *testing.T, a, b *client.Client, seed uint64) *game {
	t.Helper()
	cr, err := a.CreateRoom(ctx, "shogi", nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &game{room: cr.Room, rng: rand.New(rand.NewPCG(seed, 2))}
	g.p[0], g.p[1] = a.Player(cr.Room, cr.SeatKey), b.Player(cr.Room, "")
	for _, p := range g.p {
		if err := p.Connect(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range g.p {
		if err := bothConnected(ctx, p); err != nil {
			t.Fatalf("room %s seat %d: %v", g.room, p.Seat, err)
		}
	}
	if err := catchUp(ctx, g.p[0], g.p[1].Version); err != nil {
		t.Fatal(err)
	}
	return g
}

// bothConnected reads p's events until its presence shows both seats
// connected.
func bothConnected(ctx context.Context, p *client.Player) error {
	for {
		s := p.Presence.Seats
		if len(s) == 2 && s[0].Connected && s[1].Connected {
			return nil
		}
		if _, err := p.Next(ctx); err != nil {
			return fmt.Errorf("waiting for both seats connected: %w", err)
		}
	}
}

// TestTwoHostsOneKilled: rooms play with their two players on two hosts
// sharing one PostgreSQL; host a is killed with SIGKILL mid-game. Every
// player of a reconnects to b with the version it last saw, the log holds
// every acknowledged move exactly once (plus at most the one whose answer
// was lost), and each game is played to its end on b.
func TestTwoHostsOneKilled(t *testing.T) {
	ctx := timeout(t, 3*time.Minute)
	dsn := pgtest.DSN(t)
	ha, hb := startPG(t, dsn, "a"), startPG(t, dsn, "b")
	ca, cb := client.New(ha.URL, nil), client.New(hb.URL, nil)
	const rooms = 4
	games := make([]*game, rooms)
	for i := range games {
		games[i] = newSplitGame(ctx, t, ca, cb, uint64(i))
	}
	var killed time.Time
	ended := playUntilKilled(ctx, t, games, 10*rooms, func() { ha.Kill(); killed = time.Now() })
	t.Logf("every room noticed host a's death in %v", time.Since(killed).Round(time.Millisecond))
	endSessions(ctx, t, dsn, "a")
	for i, err := range ended {
		if err == nil || ctx.Err() != nil {
			t.Fatalf("room %d did not notice host a's death: %v", i, err)
		}
		t.Logf("room %d: %v", i, err)
	}
	for i, g := range games {
		// The database is the truth; b may learn of a's last commit only at
		// its next heartbeat (a died before its note went out).
		version, got := dbLog(ctx, t, dsn, g.room)
		n := len(g.acked)
		switch {
		case len(got) < n || !slices.Equal(got[:n], g.acked):
			t.Fatalf("room %d: the log %v does not begin with the %d acknowledged moves %v", i, got, n, g.acked)
		case len(got) > n+1 || len(got) == n+1 && got[n] != g.inflight:
			t.Fatalf("room %d: the log %v has more than the acknowledged moves %v and the one in flight %q", i, got, g.acked, g.inflight)
		}
		t.Logf("room %d: %d acknowledged moves kept; the move in flight (%q) was %s", i, n, g.inflight,
			map[bool]string{true: "stored", false: "not stored"}[len(got) == n+1])
		g.acked, g.inflight = got, ""
		// a's player resumes on b from its version; b's player reads on.
		old := g.p[0]
		p := cb.Player(g.room, old.SeatKey)
		p.Version, p.View = old.Version, old.View
		if err := p.Connect(ctx); err != nil {
			t.Fatalf("room %d: seat 0 (version %d; the log is at %d) reconnects to b: %v", i, old.Version, version, err)
		}
		g.p[0] = p
		for _, p := range g.p {
			for p.Version < version || len(p.View.History) < len(got) { // catch-up events, from b's memory or its next beat
				if _, err := p.Next(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if p.Version != version || !slices.Equal(movesOf(p.View.History), got) {
				t.Fatalf("room %d seat %d on b: version %d, moves %v; the log: %d, %v", i, p.Seat, p.Version, movesOf(p.View.History), version, got)
			}
			if err := bothConnected(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		// Play on, then the player to move resigns: the game is over.
		for range 6 {
			if err := g.step(ctx); err != nil {
				t.Fatalf("room %d on b: %v", i, err)
			}
		}
		mover, other := g.mover()
		if _, err := mover.Do(ctx, "resign", ""); err != nil {
			t.Fatalf("room %d: resign: %v", i, err)
		}
		if err := catchUp(ctx, other, mover.Version); err != nil {
			t.Fatal(err)
		}
		final := watch(ctx, t, cb, g.room)
		if final.View.Status != sdk.Over {
			t.Fatalf("room %d: the game is %s after the resignation", i, final.View.Status)
		}
		if got := movesOf(final.View.History); !slices.Equal(got[:len(got)-1], g.acked) || got[len(got)-1] != sdk.Resign {
			t.Fatalf("room %d: the final log %v is not the acknowledged moves %v and the resignation, each once", i, got, g.acked)
		}
		final.Close()
	}
}

// TestTwoHostsSameVersionOneWins: the player to move moves through one host
// while the other resigns through the other, both answering the same
// version: exactly one is applied, the other is refused as stale, and both
// players agree on what happened.
func TestTwoHostsSameVersionOneWins(t *testing.T) {
	ctx := timeout(t, 2*time.Minute)
	dsn := pgtest.DSN(t)
	ha, hb := startPG(t, dsn, "a"), startPG(t, dsn, "b")
	ca, cb := client.New(ha.URL, nil), client.New(hb.URL, nil)
	moves, resigns := 0, 0
	for round := 0; round < 12; round++ {
		g := newSplitGame(ctx, t, ca, cb, uint64(50+round))
		for range round % 3 { // from a few positions
			if err := g.step(ctx); err != nil {
				t.Fatal(err)
			}
		}
		mover, other := g.mover()
		m, err := g.pick(mover)
		if err != nil {
			t.Fatal(err)
		}
		v := mover.Version
		if other.Version != v {
			t.Fatalf("versions %d and %d", v, other.Version)
		}
		mid, err1 := mover.Act("move", m)
		oid, err2 := other.Act("resign", "")
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		_, merr := mover.Await(ctx, mid)
		_, oerr := other.Await(ctx, oid)
		switch {
		case merr == nil && oerr == nil:
			t.Fatal("a move and a resignation at the same version were both applied")
		case merr != nil && oerr != nil:
			t.Fatalf("neither was applied: %v, %v", merr, oerr)
		case merr != nil && !client.IsCode(merr, "stale"), oerr != nil && !client.IsCode(oerr, "stale"):
			t.Fatalf("the loser was refused with %v / %v, want stale", merr, oerr)
		}
		for _, p := range g.p {
			if err := catchUp(ctx, p, v+1); err != nil {
				t.Fatal(err)
			}
		}
		if mover.Version != v+1 || other.Version != v+1 {
			t.Fatalf("after one winner at version %d: versions %d and %d", v, mover.Version, other.Version)
		}
		w := watch(ctx, t, ca, g.room)
		if w.Version != v+1 {
			t.Fatalf("the server is at version %d after one winner at %d", w.Version, v)
		}
		if merr == nil {
			moves++
		} else {
			resigns++
			if mover.View.Status != sdk.Over || other.View.Status != sdk.Over {
				t.Fatalf("the resignation won but the game is %s / %s", mover.View.Status, other.View.Status)
			}
		}
		for _, p := range append(g.p[:], w) {
			p.Close()
		}
	}
	t.Logf("the move won %d times, the resignation %d times", moves, resigns)
}

// hostID is the ID a host took among those sharing the database (its log
// says it when it joins).
func hostID(t *testing.T, h *faulttest.Host) string {
	t.Helper()
	b, err := os.ReadFile(h.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`msg="joined the hosts sharing the room store" host=(\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("host %s never said it joined", h.URL)
	}
	return string(m[1])
}

// yoninGame is a Yonin room with two players, seat i's through host i, and
// the computer in seats 2 and 3.
type yoninGame struct {
	room  string
	p     [2]*client.Player
	rng   *rand.Rand
	acked []sdk.PlayedMove // the players' acknowledged moves, in order
}

// sync reads both players' events until they agree on the version and a
// player is to move (or the game is over); it returns who is to move, -1
// at the end.
func (g *yoninGame) sync(ctx context.Context) (int, error) {
	for {
		v := max(g.p[0].Version, g.p[1].Version)
		for _, p := range g.p {
			if err := catchUp(ctx, p, v); err != nil {
				return 0, err
			}
		}
		if g.p[0].Version != g.p[1].Version {
			continue
		}
		view := g.p[0].View
		if view.Status != sdk.Playing {
			return -1, nil
		}
		if s := view.ToMove[0]; s == 0 || s == 1 {
			return int(s), nil
		}
		if _, err := g.p[0].Next(ctx); err != nil { // a computer seat is to move
			return 0, err
		}
	}
}

// humanMove plays one move for the player to move after the computer's.
func (g *yoninGame) humanMove(ctx context.Context) (bool, error) {
	i, err := g.sync(ctx)
	if err != nil || i < 0 {
		return false, err
	}
	p := g.p[i]
	var ms []sdk.Move
	for _, l := range p.View.Legal {
		if l.Kind != sdk.Action {
			ms = append(ms, l.Move)
		}
	}
	if len(ms) == 0 {
		for _, l := range p.View.Legal {
			ms = append(ms, l.Move)
		}
	}
	m := ms[g.rng.IntN(len(ms))]
	if _, err := p.Do(ctx, "move", m); err != nil {
		return false, fmt.Errorf("seat %d move %s: %w", i, m, err)
	}
	g.acked = append(g.acked, sdk.PlayedMove{Seat: p.Seat, Move: m})
	return true, nil
}

// TestTwoHostsComputerSeatsTakenOver: a Yonin room with a player on each
// of two hosts sharing one PostgreSQL and the computer in the other two
// seats. The host that runs the computer seats (the holder of the room's
// lease) is killed with SIGKILL right after a player's move, when a
// computer seat is to move; the other host takes the computer seats over,
// the killed host's player resumes there, and the game goes on: every
// acknowledged move once, the computer moving again after the kill, and the
// log replaying (a host that loads the room afresh finds it whole and at
// the log's version).
func TestTwoHostsComputerSeatsTakenOver(t *testing.T) {
	ctx := timeout(t, 3*time.Minute)
	dsn := pgtest.DSN(t)
	hs := [2]*faulttest.Host{startPG(t, dsn, "a"), startPG(t, dsn, "b")}
	names := [2]string{"a", "b"}
	ids := [2]string{hostID(t, hs[0]), hostID(t, hs[1])}
	cs := [2]*client.Client{client.New(hs[0].URL, nil), client.New(hs[1].URL, nil)}
	cr, err := cs[0].CreateRoom(ctx, "yonin", sdk.Options{sdk.SettingLevel: string(sdk.Easy)})
	if err != nil {
		t.Fatal(err)
	}
	g := &yoninGame{room: cr.Room, rng: rand.New(rand.NewPCG(9, 9))}
	g.p[0], g.p[1] = cs[0].Player(cr.Room, cr.SeatKey), cs[1].Player(cr.Room, "")
	for _, p := range g.p {
		if err := p.Connect(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if g.p[1].Seat != 1 {
		t.Fatalf("the guest got seat %d", g.p[1].Seat)
	}
	if err := catchUp(ctx, g.p[0], g.p[1].Version); err != nil {
		t.Fatal(err)
	}
	if _, err := g.p[0].Do(ctx, "start", ""); err != nil {
		t.Fatal(err)
	}
	for range 6 {
		if ok, err := g.humanMove(ctx); err != nil || !ok {
			t.Fatalf("before the kill: %v (game on: %v)", err, ok)
		}
	}
	// The holder of the lease runs the computer seats: kill it now, a
	// computer seat being to move.
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var holder string
	if err := conn.QueryRow(ctx, `SELECT host FROM room_leases WHERE room = $1`, g.room).Scan(&holder); err != nil {
		t.Fatalf("no lease for the room's computer seats: %v", err)
	}
	k := slices.Index(ids[:], holder)
	if k < 0 {
		t.Fatalf("the lease is held by %q, neither host (%v)", holder, ids)
	}
	var killedAt int64
	conn.QueryRow(ctx, `SELECT version FROM rooms WHERE id = $1`, g.room).Scan(&killedAt)
	hs[k].Kill()
	endSessions(ctx, t, dsn, names[k])
	t.Logf("killed host %s (%s), which ran the computer seats, at version %d", names[k], holder, killedAt)
	// Its player resumes on the other host from its version.
	old := g.p[k]
	p := cs[1-k].Player(g.room, old.SeatKey)
	p.Version, p.View = old.Version, old.View
	if err := p.Connect(ctx); err != nil {
		t.Fatalf("seat %d reconnects to host %s: %v", k, names[1-k], err)
	}
	// The events it missed follow the welcome (which already carries the
	// server's version); the last brings the view.
	for target := p.Version; p.Resync == "events" && target > old.Version; {
		ev, err := p.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Type != "presence" && ev.Version >= target {
			break
		}
	}
	g.p[k] = p
	for range 6 {
		ok, err := g.humanMove(ctx)
		if err != nil {
			t.Fatalf("after the kill: %v", err)
		}
		if !ok {
			break
		}
	}
	rows, err := conn.Query(ctx, `SELECT version, kind, seat, move FROM actions WHERE room = $1 AND kind IN ('move', 'computer') ORDER BY version`, g.room)
	if err != nil {
		t.Fatal(err)
	}
	var human, logged []sdk.PlayedMove
	var all []string
	computerAfter := 0
	for rows.Next() {
		var v int64
		var kind, move string
		var seat int
		if err := rows.Scan(&v, &kind, &seat, &move); err != nil {
			t.Fatal(err)
		}
		all = append(all, fmt.Sprintf("%d:%s:%d:%s", v, kind, seat, move))
		logged = append(logged, sdk.PlayedMove{Seat: sdk.Seat(seat), Move: sdk.Move(move)})
		switch {
		case kind == "move":
			human = append(human, sdk.PlayedMove{Seat: sdk.Seat(seat), Move: sdk.Move(move)})
		case v > killedAt:
			computerAfter++
		}
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if !slices.EqualFunc(human, g.acked, func(a, b sdk.PlayedMove) bool { return a.Seat == b.Seat && a.Move == b.Move }) {
		t.Errorf("the players' moves in the log %v, want the acknowledged %v each once", human, g.acked)
	}
	if computerAfter == 0 && g.p[0].View.Status == sdk.Playing {
		t.Errorf("no computer move after the kill: %v", all)
	}
	t.Logf("%d players' moves, %d computer moves after the kill; log %v", len(human), computerAfter, all)
	// A third host loads the room from the log: it replays, whole (the
	// computer seats may have moved on since).
	var version int64
	if err := conn.QueryRow(ctx, `SELECT version FROM rooms WHERE id = $1`, g.room).Scan(&version); err != nil {
		t.Fatal(err)
	}
	h3 := startPG(t, dsn, "c")
	w := client.New(h3.URL, nil).Player(g.room, "")
	if err := w.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	same := func(a, b sdk.PlayedMove) bool { return a.Seat == b.Seat && a.Move == b.Move }
	if h := w.View.History; w.Version < version || len(h) < len(logged) || !slices.EqualFunc(h[:len(logged)], logged, same) {
		t.Errorf("a fresh host sees version %d with moves %v; the log had %d with %v", w.Version, movesOf(h), version, all)
	}
}
