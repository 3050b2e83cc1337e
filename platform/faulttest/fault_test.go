package faulttest_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/platform/faulttest"
	"github.com/banmen/banmen/platform/hosttest"
	"github.com/banmen/banmen/sdk"
)

// These tests run the real host (bin/banmen, the shogi plugin, SQLite) as a
// subprocess, with clients playing over real sockets, and break it: the
// host killed outright and restarted on its data directory, the rules
// plugin killed during moves, two seats acting at one version.

var (
	binOnce sync.Once
	bin     string
	binErr  error
)

// binDir is $BANMEN_BIN (the Makefile sets it) or binaries built once for
// this test binary.
func binDir(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if bin = os.Getenv("BANMEN_BIN"); bin != "" {
			return
		}
		dir, err := os.MkdirTemp("", "banmen-faulttest-")
		if err != nil {
			binErr = err
			return
		}
		bin = filepath.Join(dir, "bin")
		binErr = hosttest.Build(context.Background(), bin)
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return bin
}

// start runs a host on data; it is killed at the end of the test.
func start(t *testing.T, data string, args ...string) *faulttest.Host {
	t.Helper()
	logs := filepath.Join(t.TempDir(), "host.log")
	h, err := faulttest.Start(context.Background(), faulttest.Options{Bin: binDir(t), Data: data, Logs: logs,
		Args: append([]string{"-limits.socket_burst", "1000", "-limits.socket_rate", "1000", "-limits.rooms_per_minute", "1000",
			"-limits.sockets_per_minute", "100000", "-limits.api_calls_per_minute", "100000", "-ops_addr", "127.0.0.1:0",
			"-limits.action_burst", "1000", "-limits.action_rate", "1000"}, args...)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.Kill()
		if t.Failed() {
			b, _ := os.ReadFile(logs)
			t.Logf("host log:\n%s", b)
		}
	})
	return h
}

func timeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// game is a shogi room and its two players.
type game struct {
	room string
	p    [2]*client.Player
	rng  *rand.Rand
	// acked are the moves the server acknowledged, in order; inflight is
	// the move sent whose answer never came.
	acked    []sdk.Move
	inflight sdk.Move
}

// playUntilKilled plays every game's moves until steps moves have been
// made in all, calls kill, and returns the error each game ended on once
// its connection failed (each game is bounded at 1000 moves all the same).
func playUntilKilled(ctx context.Context, t *testing.T, games []*game, steps int, kill func()) []error {
	t.Helper()
	progress := make(chan struct{}, 1<<16)
	var wg sync.WaitGroup
	ended := make([]error, len(games))
	for i, g := range games {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 1000; n++ {
				if err := g.step(ctx); err != nil {
					ended[i] = err
					return
				}
				progress <- struct{}{}
			}
		}()
	}
	for n := 0; n < steps; n++ {
		select {
		case <-progress:
		case <-ctx.Done():
			t.Fatal("the rooms made no progress")
		}
	}
	kill()
	wg.Wait()
	return ended
}

func newGame(ctx context.Context, t *testing.T, c *client.Client, seed uint64) *game {
	t.Helper()
	cr, err := c.CreateRoom(ctx, "shogi", nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &game{room: cr.Room, rng: rand.New(rand.NewPCG(seed, 1))}
	for i, key := range []string{cr.SeatKey, ""} {
		g.p[i] = c.Player(cr.Room, key)
		if err := g.p[i].Connect(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := catchUp(ctx, g.p[0], g.p[1].Version); err != nil {
		t.Fatal(err)
	}
	return g
}

// catchUp reads p's events until it has seen version v.
func catchUp(ctx context.Context, p *client.Player, v int64) error {
	for p.Version < v {
		if _, err := p.Next(ctx); err != nil {
			return err
		}
	}
	return nil
}

// mover is the player to move and the other.
func (g *game) mover() (*client.Player, *client.Player) {
	if slices.Contains(g.p[0].View.ToMove, g.p[0].Seat) {
		return g.p[0], g.p[1]
	}
	return g.p[1], g.p[0]
}

// errOver ends a room's play: its game is over (random play can mate).
var errOver = errors.New("the game is over")

// pick is one of p's legal board moves or drops.
func (g *game) pick(p *client.Player) (sdk.Move, error) {
	if p.View.Status == sdk.Over {
		return "", errOver
	}
	var ms []sdk.Move
	for _, l := range p.View.Legal {
		if l.Kind != sdk.Action {
			ms = append(ms, l.Move)
		}
	}
	if len(ms) == 0 {
		return "", fmt.Errorf("seat %d to move at version %d has no legal move (status %s)", p.Seat, p.Version, p.View.Status)
	}
	return ms[g.rng.IntN(len(ms))], nil
}

// step plays one move: the player to move sends it and waits for its ack;
// the other reads it.
func (g *game) step(ctx context.Context) error {
	mover, other := g.mover()
	m, err := g.pick(mover)
	if err != nil {
		return err
	}
	g.inflight = m
	if _, err := mover.Do(ctx, "move", m); err != nil {
		return fmt.Errorf("move %s: %w", m, err)
	}
	g.acked, g.inflight = append(g.acked, m), ""
	return catchUp(ctx, other, mover.Version)
}

// watch joins a room as a spectator: the server's version and full view.
func watch(ctx context.Context, t *testing.T, c *client.Client, room string) *client.Player {
	t.Helper()
	w := c.Player(room, "")
	if err := w.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if w.Seat != -1 || w.Resync != "full" {
		t.Fatalf("the watcher got seat %d, resync %q", w.Seat, w.Resync)
	}
	return w
}

func movesOf(h []sdk.PlayedMove) []sdk.Move {
	out := make([]sdk.Move, len(h))
	for i, p := range h {
		out[i] = p.Move
	}
	return out
}

// TestHostKilledMidGame: rooms play over real sockets; the host is killed
// with SIGKILL mid-game and restarted on the same data directory. Every
// acknowledged move is in the log exactly once and in order (plus, at most,
// the one move whose answer was lost), the players reconnect with their
// last versions and converge on the server's, and play goes on.
func TestHostKilledMidGame(t *testing.T) {
	ctx := timeout(t, 2*time.Minute)
	data := t.TempDir()
	h := start(t, data)
	c := client.New(h.URL, nil)
	const rooms = 4
	games := make([]*game, rooms)
	for i := range games {
		games[i] = newGame(ctx, t, c, uint64(i))
	}
	ended := playUntilKilled(ctx, t, games, 12*rooms, h.Kill)
	for i, err := range ended {
		if err == nil || ctx.Err() != nil {
			t.Fatalf("room %d did not notice the host's death: %v", i, err)
		}
	}

	h = start(t, data)
	c = client.New(h.URL, nil)
	for i, g := range games {
		w := watch(ctx, t, c, g.room)
		got := movesOf(w.View.History)
		n := len(g.acked)
		switch {
		case len(got) < n || !slices.Equal(got[:n], g.acked):
			t.Fatalf("room %d: the log after the restart %v does not begin with the %d acknowledged moves %v", i, got, n, g.acked)
		case len(got) > n+1 || len(got) == n+1 && got[n] != g.inflight:
			t.Fatalf("room %d: the log %v has more than the acknowledged moves %v and the one in flight %q", i, got, g.acked, g.inflight)
		}
		t.Logf("room %d: %d acknowledged moves kept; the move in flight (%q) was %s", i, n, g.inflight,
			map[bool]string{true: "stored", false: "not stored"}[len(got) == n+1])
		// The players come back with the version they last saw.
		for j, old := range g.p {
			p := c.Player(g.room, old.SeatKey)
			p.Version, p.View = old.Version, old.View
			if err := p.Connect(ctx); err != nil {
				t.Fatalf("room %d seat %d (key %.6s…, seat %d, version %d; the server is at %d) reconnects: %v", i, j, old.SeatKey, old.Seat, old.Version, w.Version, err)
			}
			if p.Resync == "events" {
				for p.View.Ply < w.View.Ply { // the moves it missed
					if _, err := p.Next(ctx); err != nil {
						t.Fatal(err)
					}
				}
			}
			if p.Version != w.Version || !slices.Equal(movesOf(p.View.History), got) {
				t.Fatalf("room %d seat %d after reconnecting (%s): version %d, %d moves; the server: %d, %d moves",
					i, j, p.Resync, p.Version, len(p.View.History), w.Version, len(got))
			}
			g.p[j] = p
		}
		w.Close()
		// Play goes on from there.
		g.acked = got
		for range 2 {
			if err := g.step(ctx); err != nil {
				t.Fatalf("room %d after the restart: %v", i, err)
			}
		}
		if g.p[0].Version != g.p[1].Version {
			t.Fatalf("room %d: versions %d and %d", i, g.p[0].Version, g.p[1].Version)
		}
	}
}

// TestPluginKilledDuringMoves: rooms play while the shogi plugin is killed
// with SIGKILL, three times. Each move is applied exactly once or refused
// (then sent again); none is applied twice, and the rooms go on with the
// restarted plugin.
func TestPluginKilledDuringMoves(t *testing.T) {
	ctx := timeout(t, 3*time.Minute)
	h := start(t, t.TempDir(), "-limits.restart_burst", "50")
	c := client.New(h.URL, nil)
	const rooms = 4
	games := make([]*game, rooms)
	for i := range games {
		games[i] = newGame(ctx, t, c, uint64(100+i))
	}
	progress := make(chan struct{}, 1<<16)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused, duplicates := 0, 0
	var total atomic.Int64
	ended := make([]error, rooms)
	for i, g := range games {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 5000; n++ {
				select {
				case <-stop:
					return
				default:
				}
				mover, other := g.mover()
				m, err := g.pick(mover)
				if errors.Is(err, errOver) {
					return
				}
				if err != nil {
					ended[i] = err
					return
				}
				// Refused as unavailable while the plugin restarts: sent
				// again at the same version, as a client would.
				var ev client.RoomEvent
				for try := 0; ; try++ {
					ev, err = mover.Do(ctx, "move", m)
					if !client.IsCode(err, "unavailable") || try == 1000 {
						break
					}
					mu.Lock()
					refused++
					mu.Unlock()
					select {
					case <-time.After(10 * time.Millisecond): // back off while the plugin restarts
					case <-ctx.Done():
					}
				}
				if err != nil {
					ended[i] = fmt.Errorf("move %s: %w", m, err)
					return
				}
				if ev.Duplicate {
					mu.Lock()
					duplicates++
					mu.Unlock()
				}
				g.acked = append(g.acked, m)
				if err := catchUp(ctx, other, mover.Version); err != nil {
					ended[i] = err
					return
				}
				total.Add(1)
				progress <- struct{}{}
			}
		}()
	}
	// wait waits until the rooms have made n more moves than now: counted,
	// not just signalled, since signals of moves made before a kill may
	// still be buffered.
	wait := func(n int64) {
		for target := total.Load() + n; total.Load() < target; {
			select {
			case <-progress:
			case <-ctx.Done():
				close(stop)
				wg.Wait()
				t.Fatalf("the rooms stopped making progress: %v", ended)
			}
		}
	}
	wait(8)
	for k := 0; k < 3; k++ {
		pid := faulttest.Child(h.PID(), "shogi")
		if pid == 0 {
			t.Fatal("no shogi plugin under the host")
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		wait(12) // the rooms go on (at most one move per room was answered before the kill)
		if np := faulttest.Child(h.PID(), "shogi"); np == pid || np == 0 {
			t.Fatalf("the plugin %d was not replaced (now %d)", pid, np)
		}
	}
	close(stop)
	wg.Wait()
	for i, err := range ended {
		if err != nil {
			t.Fatalf("room %d: %v", i, err)
		}
	}
	if duplicates > 0 {
		t.Errorf("%d moves refused as unavailable had been applied (their resend was a duplicate)", duplicates)
	}
	for i, g := range games {
		w := watch(ctx, t, c, g.room)
		if got := movesOf(w.View.History); !slices.Equal(got, g.acked) {
			t.Errorf("room %d: the log %v is not the acknowledged moves %v", i, got, g.acked)
		}
		if w.Version != g.p[0].Version || w.Version != g.p[1].Version {
			t.Errorf("room %d: versions: server %d, players %d and %d", i, w.Version, g.p[0].Version, g.p[1].Version)
		}
		w.Close()
	}
	b, _ := os.ReadFile(h.LogPath())
	t.Logf("3 kills; %d calls in flight retried by the host on the restarted plugin; %d moves refused while it was down (then sent again)",
		strings.Count(string(b), "retrying once"), refused)
}

// TestSameVersionOneWins: over the real host, the player to move moves
// while the other resigns, both answering the same version: exactly one is
// applied, the other is refused as stale, and both players agree on what
// happened.
func TestSameVersionOneWins(t *testing.T) {
	ctx := timeout(t, time.Minute)
	h := start(t, t.TempDir())
	c := client.New(h.URL, nil)
	g := newGame(ctx, t, c, 7)
	moves, resigns := 0, 0
	for round := 0; round < 20; round++ {
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
		if err := catchUp(ctx, mover, other.Version); err != nil {
			t.Fatal(err)
		}
		if err := catchUp(ctx, other, mover.Version); err != nil {
			t.Fatal(err)
		}
		if mover.Version != v+1 || other.Version != v+1 {
			t.Fatalf("after one winner at version %d: versions %d and %d", v, mover.Version, other.Version)
		}
		if merr == nil {
			moves++
			continue
		}
		resigns++
		if mover.View.Status != sdk.Over || other.View.Status != sdk.Over {
			t.Fatalf("the resignation won but the game is %s / %s", mover.View.Status, other.View.Status)
		}
		// A new round by consent, then on.
		if _, err := other.Do(ctx, "newRound", ""); err != nil {
			t.Fatal(err)
		}
		if err := catchUp(ctx, mover, other.Version); err != nil {
			t.Fatal(err)
		}
		if _, err := mover.Do(ctx, "accept", ""); err != nil {
			t.Fatal(err)
		}
		if err := catchUp(ctx, other, mover.Version); err != nil {
			t.Fatal(err)
		}
	}
	w := watch(ctx, t, c, g.room)
	if w.Version != g.p[0].Version || w.Version != g.p[1].Version {
		t.Errorf("versions: server %d, players %d and %d", w.Version, g.p[0].Version, g.p[1].Version)
	}
	t.Logf("the move won %d times, the resignation %d times", moves, resigns)
}
