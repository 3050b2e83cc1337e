package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/tools/internal/hostproc"
	"github.com/banmen/banmen/tools/internal/pgserver"
)

// -stores: the same load against three setups, one after the other, in one
// run, printed side by side: one host on SQLite, one host on PostgreSQL,
// and two hosts sharing one PostgreSQL (the rooms created half on each,
// and in half of the rooms the guest plays through the other host, so its
// moves reach the host's player by NOTIFY). PostgreSQL is a temporary
// cluster this command starts (tools/internal/pgserver) with fsync on, so
// that both stores make every commit durable.

// setup is one column of the comparison.
type setup struct {
	name  string
	store string // sqlite or postgres
	hosts int
}

// result is what one setup measured.
type result struct {
	setup
	rooms, split int
	elapsed      time.Duration
	moves        int64
	rtts         []time.Duration
	hostCPU      time.Duration // hosts and their plugins
	pgCPU        time.Duration // the PostgreSQL backends
	errs         map[string]int
	firstErr     string
	mismatched   int
}

func runStores(ctx context.Context, o options, stdout, stderr io.Writer) error {
	out := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	pg, err := pgserver.Start()
	if err != nil {
		return fmt.Errorf("PostgreSQL for -stores: %w", err)
	}
	defer pg.Stop()
	setups := []setup{
		{"sqlite, 1 host", "sqlite", 1},
		{"postgres, 1 host", "postgres", 1},
		{"postgres, 2 hosts", "postgres", 2},
	}
	var results []result
	for _, s := range setups {
		r, err := measure(ctx, o, pg, s, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		results = append(results, r)
	}
	out("load -stores: %d rooms of %s (2 players each), %s per setup, over loopback, %d cores", o.rooms, o.variant, o.duration, nproc())
	out("%-28s %10s %9s %9s %9s %12s %12s %12s %7s", "setup", "moves/s", "p50", "p99", "p99.9", "CPU/move", "host+plugins", "postgres", "errors")
	failed := 0
	for _, r := range results {
		slices.Sort(r.rtts)
		nerr := 0
		for _, n := range r.errs {
			nerr += n
		}
		if nerr > 0 || r.mismatched > 0 {
			failed++
		}
		name := r.name
		if r.split > 0 {
			name += fmt.Sprintf(" (%d split)", r.split)
		}
		pgc := "-"
		if r.store == "postgres" {
			pgc = perMove(r.pgCPU, max(r.moves, 1))
		}
		out("%-28s %10.0f %9s %9s %9s %12s %12s %12s %7d", name, float64(r.moves)/r.elapsed.Seconds(),
			pct(r.rtts, 0.5), pct(r.rtts, 0.99), pct(r.rtts, 0.999), perMove(r.hostCPU+r.pgCPU, max(r.moves, 1)),
			perMove(r.hostCPU, max(r.moves, 1)), pgc, nerr)
		if nerr > 0 || r.mismatched > 0 {
			out("  %s: errors %s; %d rooms whose clients disagree; first: %s", r.name, fmtErrs(r.errs), r.mismatched, r.firstErr)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d setups had errors", failed)
	}
	return nil
}

// measure starts the setup's hosts, plays o.rooms rooms on them for
// o.duration and stops them.
func measure(ctx context.Context, o options, pg *pgserver.Cluster, s setup, stderr io.Writer) (result, error) {
	res := result{setup: s, rooms: o.rooms, errs: map[string]int{}}
	dir, err := os.MkdirTemp("", "banmen-load-")
	if err != nil {
		return res, err
	}
	if o.keep {
		fmt.Fprintf(stderr, "load: %s: data directories and host logs in %s\n", s.name, dir)
	} else {
		defer os.RemoveAll(dir)
	}
	args := hostArgs()
	if s.store == "postgres" {
		dsn, err := pg.NewDatabase(ctx)
		if err != nil {
			return res, err
		}
		args = append(args, "-store", "postgres", "-store_dsn", dsn, "-state_key", "load-cluster-state-key-0123456789abcdef")
	}
	var hosts []*hostproc.Host
	defer func() {
		for _, h := range hosts {
			if err := h.Stop(); err != nil {
				fmt.Fprintln(stderr, "load: stopping a host:", err)
			}
		}
	}()
	var cs []*client.Client
	for i := range s.hosts {
		data := filepath.Join(dir, fmt.Sprint("host", i))
		if err := os.Mkdir(data, 0o755); err != nil {
			return res, err
		}
		h, err := hostproc.Start(ctx, hostproc.Options{Bin: o.bin, Data: data, Logs: filepath.Join(data, "host.log"), Args: args})
		if err != nil {
			return res, err
		}
		hosts = append(hosts, h)
		c := client.New(h.URL, nil)
		if _, err := c.CreateRoom(ctx, o.variant, nil); err != nil { // warm up
			return res, err
		}
		cs = append(cs, c)
	}
	rooms := make([]*loadRoom, o.rooms)
	var split atomic.Int64
	err = parallel(ctx, o.rooms, o.parallel, func(i int) error {
		// Room i is created on host i%n; with two hosts every other pair
		// of rooms has its guest on the other host.
		a := cs[i%len(cs)]
		b := a
		if len(cs) > 1 && i/2%2 == 1 {
			b = cs[(i+1)%len(cs)]
			split.Add(1)
		}
		r, err := newSplitRoom(ctx, a, b, o.variant, uint64(i))
		rooms[i] = r
		return err
	})
	defer func() {
		for _, r := range rooms {
			r.close()
		}
	}()
	if err != nil {
		return res, fmt.Errorf("set up rooms: %w", err)
	}
	res.split = int(split.Load())
	pgPID := 0
	if s.store == "postgres" {
		if pgPID, err = pg.PID(); err != nil {
			return res, err
		}
	}
	cpu := func() (host, db time.Duration) {
		for _, h := range hosts {
			m, _ := hostproc.TreeCPU(h.PID())
			for _, d := range m {
				host += d
			}
		}
		if pgPID != 0 {
			m, _ := hostproc.TreeCPU(pgPID)
			for _, d := range m {
				db += d
			}
		}
		return host, db
	}
	h0, d0 := cpu()
	start := time.Now()
	end := start.Add(o.duration)
	playAll(rooms, start, end, o.maxPly, o.maxMoves, 0)
	res.elapsed = time.Since(start)
	h1, d1 := cpu()
	res.hostCPU, res.pgCPU = h1-h0, d1-d0
	for _, r := range rooms {
		res.rtts = append(res.rtts, r.rtt...)
		res.moves += r.moves
		for k, n := range r.errs {
			res.errs[k] += n
		}
		if res.firstErr == "" && r.firstErr != "" {
			res.firstErr = fmt.Sprintf("room %s: %s", r.id, r.firstErr)
		}
		if r.s[0].version != r.s[1].version {
			res.mismatched++
		}
	}
	return res, nil
}

// newSplitRoom is newRoom with the host's player connected through a and
// the guest through b (the same client or another host); it returns once
// both players see both seats connected, so that no move waits for the
// presence of a player on the other host.
func newSplitRoom(ctx context.Context, a, b *client.Client, variant string, n uint64) (*loadRoom, error) {
	if a == b {
		return newRoom(ctx, a, variant, n)
	}
	cr, err := a.CreateRoom(ctx, variant, nil)
	if err != nil {
		return nil, err
	}
	r := &loadRoom{id: cr.Room, rng: rand.New(rand.NewPCG(n, 0x6c6f6164)), errs: map[string]int{}}
	ps := [2]*client.Player{a.Player(cr.Room, cr.SeatKey), b.Player(cr.Room, "")}
	for i, p := range ps {
		p.NetDial = dialBuffered
		if err := p.Connect(ctx); err != nil {
			r.close()
			return nil, err
		}
		r.s[i] = &seat{p: p}
	}
	for i, p := range ps {
		for s := p.Presence.Seats; len(s) != 2 || !s[0].Connected || !s[1].Connected || p.Version < ps[1].Version; s = p.Presence.Seats {
			if _, err := p.Next(ctx); err != nil {
				r.close()
				return nil, fmt.Errorf("room %s: waiting for both seats: %w", r.id, err)
			}
		}
		r.s[i] = seatOf(p)
	}
	return r, nil
}
