package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/tools/internal/hostproc"
	"github.com/fasthttp/websocket"
)

type options struct {
	base       string
	bin        string
	variant    string
	rooms      int
	idle       int
	duration   time.Duration
	maxMoves   int64
	rate       float64 // moves/s offered over all rooms; 0: closed loop
	maxPly     int
	ref        time.Duration
	parallel   int
	cpuprofile string
	allocProf  string
	selfProf   string
	pluginProf string
	pluginEnv  string
	keep       bool
	stores     bool // stores.go
}

func parse(args []string, getenv func(string) string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bin := hostproc.BinDir(getenv)
	fs.StringVar(&o.base, "base", "", "a running site to load (http://host:port); empty: start bin/banmen on a temporary data directory")
	fs.StringVar(&o.bin, "bin", bin, "the built host and plugins (`make build`), for the host this command starts")
	fs.StringVar(&o.variant, "variant", "shogi", "the variant every room plays")
	fs.IntVar(&o.rooms, "rooms", 1000, "rooms playing at once (two players each)")
	fs.IntVar(&o.idle, "idle", 1000, "idle rooms created first to measure memory per room (0: none)")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "how long the rooms play")
	fs.Int64Var(&o.maxMoves, "moves", 5_000_000, "stop after this many confirmed moves, if sooner")
	fs.Float64Var(&o.rate, "rate", 0, "moves/s offered over all rooms: each room's next move is due rooms/rate seconds after its last was due (0: closed loop, each room's next move sent as soon as the last is acknowledged)")
	fs.IntVar(&o.maxPly, "max-ply", 160, "the player to move resigns at this ply (then a new round by consent), so games keep a realistic length")
	fs.DurationVar(&o.ref, "ref", 2*time.Second, "how long the reference (a bare loopback WebSocket echo) runs, before the rooms play and again after (0: skip)")
	fs.IntVar(&o.parallel, "parallel", 32, "rooms created and connected at once while setting up")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write the started host's CPU profile of the whole run here (BANMEN_CPUPROFILE)")
	fs.StringVar(&o.allocProf, "allocprofile", "", "write where the started host allocated over its whole run here (BANMEN_ALLOCPROFILE; read with -sample_index=alloc_space)")
	fs.StringVar(&o.selfProf, "self-cpuprofile", "", "write this command's own CPU profile (the load generator's) of the whole run here")
	fs.StringVar(&o.pluginProf, "plugin-cpuprofile", "", "write each plugin's CPU profile of the whole run into this directory (<plugin>-<pid>.prof; BANMEN_PLUGIN_CPUPROFILE in plugin_env)")
	fs.StringVar(&o.pluginEnv, "plugin-env", "", "extra environment for the plugins, KEY=VALUE,... (the host's plugin_env; e.g. GOMAXPROCS=2)")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary data directory and host log")
	fs.BoolVar(&o.stores, "stores", false, "compare one host on SQLite, one on PostgreSQL and two sharing one PostgreSQL (stores.go); needs PostgreSQL's initdb")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.rooms < 1 || o.duration <= 0 || o.parallel < 1 {
		return o, errors.New("-rooms, -duration and -parallel must be positive")
	}
	if o.rate < 0 || o.rate > 0 && float64(o.rooms)/o.rate*1e9 > float64(o.duration) {
		return o, fmt.Errorf("-rate must be 0 or at least one move per room within -duration (%.2f/s)", float64(o.rooms)/o.duration.Seconds())
	}
	if o.rate > 0 && o.stores {
		return o, errors.New("-rate is for the default mode, not -stores")
	}
	return o, nil
}

// run is the whole command (the smoke test calls it).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o, err := parse(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if o.stores {
		return runStores(ctx, o, stdout, stderr)
	}
	out := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	if o.selfProf != "" {
		f, err := os.Create(o.selfProf)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	refConns := min(o.rooms, 1000) * 2
	var before, after echoFigures
	if o.ref > 0 {
		if before, err = echo(ctx, refConns, o.ref); err != nil {
			return fmt.Errorf("reference: %w", err)
		}
	}

	base, pid := o.base, 0
	if base == "" {
		var env, penv []string
		for _, p := range []struct {
			to        *[]string
			key, path string
		}{
			{&env, "BANMEN_CPUPROFILE", o.cpuprofile},
			{&env, "BANMEN_ALLOCPROFILE", o.allocProf},
			{&penv, "BANMEN_PLUGIN_CPUPROFILE", o.pluginProf},
		} {
			kv, err := pathSetting(p.key, p.path)
			if err != nil {
				return err
			}
			*p.to = append(*p.to, kv...)
		}
		if o.pluginProf != "" {
			if err := os.MkdirAll(o.pluginProf, 0o755); err != nil {
				return err
			}
		}
		if o.pluginEnv != "" {
			penv = append(penv, o.pluginEnv)
		}
		var args []string
		if len(penv) > 0 {
			args = []string{"-plugin_env", strings.Join(penv, ",")}
		}
		h, stop, err := startHost(ctx, o.bin, o.keep, env, args, out, stderr)
		if err != nil {
			return err
		}
		defer stop()
		base, pid = h.URL, h.PID()
	}
	c := client.New(base, nil)
	if _, err := c.CreateRoom(ctx, o.variant, nil); err != nil { // warm up: the plugin is started and answers
		return err
	}

	rss := func() int64 {
		if pid == 0 {
			return 0
		}
		n, _ := hostproc.RSS(pid)
		return n
	}
	rss0 := rss()
	if err := parallel(ctx, o.idle, o.parallel, func(int) error {
		_, err := c.CreateRoom(ctx, o.variant, nil)
		return err
	}); err != nil {
		return fmt.Errorf("idle rooms: %w", err)
	}
	rss1 := rss()

	rooms := make([]*loadRoom, o.rooms)
	if err := parallel(ctx, o.rooms, o.parallel, func(i int) error {
		r, err := newRoom(ctx, c, o.variant, uint64(i))
		rooms[i] = r
		return err
	}); err != nil {
		for _, r := range rooms {
			r.close()
		}
		return fmt.Errorf("set up rooms: %w", err)
	}
	defer func() {
		for _, r := range rooms {
			r.close()
		}
	}()
	rss2 := rss()

	cpu0, _ := treeCPU(pid)
	self0 := selfCPU()
	start := time.Now()
	end := start.Add(o.duration)
	playAll(rooms, start, end, o.maxPly, o.maxMoves, o.rate)
	elapsed := time.Since(start)
	cpu1, _ := treeCPU(pid)
	self1 := selfCPU()

	// Every client must end where the server is: both players, and a
	// spectator that joins now.
	var mismatched atomic.Int64
	_ = parallel(ctx, len(rooms), o.parallel, func(i int) error {
		r := rooms[i]
		w := c.Player(r.id, "")
		err := w.Connect(ctx)
		defer w.Close()
		if err != nil || r.s[0].version != r.s[1].version || r.s[0].version != w.Version {
			mismatched.Add(1)
			r.fail(fmt.Sprintf("versions: players %d and %d, server %d (%v)", r.s[0].version, r.s[1].version, w.Version, err))
		}
		return nil
	})
	if o.ref > 0 {
		if after, err = echo(ctx, refConns, o.ref); err != nil {
			return fmt.Errorf("reference after the rooms: %w", err)
		}
	}

	var rtts, fromDue []time.Duration
	errs := map[string]int{}
	var moves, actions, late, unsent int64
	for _, r := range rooms {
		rtts = append(rtts, r.rtt...)
		fromDue = append(fromDue, r.fromDue...)
		moves += r.moves
		actions += r.actions
		late += r.late
		unsent += r.unsent
		for k, n := range r.errs {
			errs[k] += n
		}
	}
	slices.Sort(rtts)
	slices.Sort(fromDue)
	nerr := 0
	for _, n := range errs {
		nerr += n
	}

	out("load: %d rooms of %s (2 players each) for %s over loopback, %s", o.rooms, o.variant, elapsed.Round(time.Millisecond), base)
	if o.ref > 0 {
		out("reference:           bare WebSocket echo on loopback (%d connections, in this process): before the rooms %.0f messages/s, %s of CPU a message; after %.0f/s, %s",
			refConns, before.rate, perMove(before.cpu, 1), after.rate, perMove(after.cpu, 1))
	}
	if o.rate > 0 {
		out("offered:             %.0f moves/s over %d rooms (each room's next move due every %s, the rooms' phases spread evenly); achieved %.0f/s; due by the end but not sent: %d",
			o.rate, o.rooms, interval(o.rooms, o.rate).Round(time.Microsecond), float64(moves)/elapsed.Seconds(), unsent)
	}
	out("confirmed moves:     %d (%.0f/s); other confirmed actions (new rounds): %d", moves, float64(moves)/elapsed.Seconds(), actions)
	out("move round trip:     p50 %s  p99 %s  p99.9 %s  max %s (send → ack)",
		pct(rtts, 0.50), pct(rtts, 0.99), pct(rtts, 0.999), pct(rtts, 1))
	if o.rate > 0 {
		out("from the due time:   p50 %s  p99 %s  p99.9 %s  max %s (due → ack: a move sent late counts from when it was due)",
			pct(fromDue, 0.50), pct(fromDue, 0.99), pct(fromDue, 0.999), pct(fromDue, 1))
		out("sent late:           %d of %d moves (%.1f%%): the room's previous move was acknowledged after this one was due",
			late, moves, 100*float64(late)/float64(max(moves, 1)))
	}
	if pid != 0 && moves > 0 {
		total := time.Duration(0)
		var parts []string
		names := make([]string, 0, len(cpu1))
		for n := range cpu1 {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			d := cpu1[n] - cpu0[n]
			total += d
			label := n
			if n == "" {
				label = "host"
			}
			if d > 0 || n == "" {
				parts = append(parts, fmt.Sprintf("%s %s", label, perMove(d, moves)))
			}
		}
		out("server CPU per move: %s (%s); %.2f of %d cores busy", perMove(total, moves), strings.Join(parts, ", "),
			total.Seconds()/elapsed.Seconds(), nproc())
		out("load generator CPU:  %s per move (this process)", perMove(self1-self0, moves))
	} else {
		out("server CPU per move: not measured (the host is not this command's child)")
	}
	if pid != 0 && o.idle > 0 {
		out("memory per idle room: %s (host RSS %s → %s over %d rooms created, none connected)",
			size((rss1-rss0)/int64(o.idle)), size(rss0), size(rss1), o.idle)
		out("memory per connected room: %s (two sockets each, RSS → %s)", size((rss2-rss1)/int64(o.rooms)), size(rss2))
	}
	out("errors:              %d %s", nerr, fmtErrs(errs))
	out("final versions:      %d of %d rooms with every client on the server's version", int64(len(rooms))-mismatched.Load(), len(rooms))
	if nerr > 0 || mismatched.Load() > 0 {
		for _, r := range rooms {
			if r.firstErr != "" {
				out("first error (room %s): %s", r.id, r.firstErr)
				break
			}
		}
		return fmt.Errorf("%d errors, %d rooms whose clients disagree with the server", nerr, mismatched.Load())
	}
	return nil
}

func perMove(d time.Duration, moves int64) string {
	return (d / time.Duration(moves)).Round(100 * time.Nanosecond).String()
}

func pct(d []time.Duration, p float64) string {
	if len(d) == 0 {
		return "-"
	}
	i := int(float64(len(d)-1) * p)
	return d[i].Round(10 * time.Microsecond).String()
}

func size(n int64) string {
	switch {
	case n >= 10<<20 || n <= -10<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 10<<10 || n <= -10<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func fmtErrs(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	var ks []string
	for k, n := range m {
		ks = append(ks, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(ks)
	return "(" + strings.Join(ks, " ") + ")"
}

func nproc() int {
	var s unixCPUSet
	if s.load() {
		return s.n
	}
	return 0
}

// unixCPUSet counts the CPUs this process may run on.
type unixCPUSet struct{ n int }

func (s *unixCPUSet) load() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			for _, part := range strings.Split(strings.TrimSpace(v), ",") {
				lo, hi, found := strings.Cut(part, "-")
				a, _ := strconv.Atoi(lo)
				b := a
				if found {
					b, _ = strconv.Atoi(hi)
				}
				s.n += b - a + 1
			}
			return true
		}
	}
	return false
}

func treeCPU(pid int) (map[string]time.Duration, error) {
	if pid == 0 {
		return nil, nil
	}
	return hostproc.TreeCPU(pid)
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// parallel runs fn(0..n-1), at most k at once; the first error stops it.
func parallel(ctx context.Context, n, k int, fn func(int) error) error {
	var next atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range min(n, k) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(i); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n))
					return
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// seat is one player: its socket and what it knows of the room. It
// reuses its buffers from one message to the next: the message read, the
// event decoded from it, its legal moves, the request it writes.
type seat struct {
	p       *client.Player
	ws      *websocket.Conn
	seat    int
	version int64
	legal   moveList // its own board moves and drops, when it is to move
	toMove  bool
	over    bool
	ply     int
	pending bool // a new round is requested

	msg []byte         // the last message read
	ev  protocol.Event // decoded from msg
	id  string         // the id of the last request written
}

// seatOf is a load seat for a connected player.
func seatOf(p *client.Player) *seat {
	s := &seat{p: p, ws: p.Conn(), seat: int(p.Seat), version: p.Version, pending: p.NewRound != nil}
	for _, l := range p.View.Legal {
		if l.Kind != "action" {
			s.legal.add([]byte(l.Move))
		}
	}
	s.toMove = slices.Contains(p.View.ToMove, sdk.Seat(s.seat))
	s.over, s.ply = p.View.Status == sdk.Over, p.View.Ply
	return s
}

// bufferedConn is a player's TCP connection read through a buffer that
// holds a whole move event and the ack behind it: the WebSocket reads
// through 4 KB of its own, and an event to the seat to move (its legal
// moves, with drops in hand 100 and more) is often larger, which took two
// or three read system calls.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// dialBuffered is a client.Player's NetDial for a bufferedConn.
func dialBuffered(network, addr string) (net.Conn, error) {
	c, err := net.Dial(network, addr)
	if err != nil {
		return nil, err
	}
	return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, 16<<10)}, nil
}

// readMessage reads the next message into the seat's buffer.
func (s *seat) readMessage() ([]byte, error) {
	_, r, err := s.ws.NextReader()
	if err != nil {
		return nil, err
	}
	b := s.msg[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	s.msg = b
	return b, nil
}

// read reads and applies one message. The event is the seat's own: it is
// valid until the next read.
func (s *seat) read() (*protocol.Event, error) {
	ev := &s.ev
	*ev = protocol.Event{}
	b, err := s.readMessage()
	if err != nil {
		return ev, err
	}
	if err := protocol.DecodeEvent(b, ev); err != nil {
		return ev, err
	}
	if ev.Type == protocol.EvError {
		return ev, fmt.Errorf("error event: %s %s", ev.Code, ev.Message)
	}
	s.version = ev.Version
	if v := ev.View; v != nil {
		s.legal.reset()
		for _, l := range v.Legal {
			if l.Kind != "action" {
				s.legal.add([]byte(l.Move))
			}
		}
		s.toMove, s.over, s.ply = slices.Contains(v.ToMove, sdk.Seat(s.seat)), v.Status == sdk.Over, v.Ply
	}
	switch ev.Type {
	case protocol.EvRequest, protocol.EvAccept:
		s.pending = true
	case protocol.EvRound, protocol.EvDecline, protocol.EvWithdraw:
		s.pending = false
	}
	return ev, nil
}

// syncTo reads until the player has seen version v.
func (s *seat) syncTo(v int64) error {
	for s.version < v {
		if _, err := s.read(); err != nil {
			return err
		}
	}
	return nil
}

var ids atomic.Int64

// do sends a request answering the player's version and reads until its
// answer (valid until the seat's next read). move may alias the seat's
// legal moves: it is copied into the request before anything is read.
func (s *seat) do(typ string, move []byte) (*protocol.Event, error) {
	v := s.version
	s.id = strconv.FormatInt(ids.Add(1), 36)
	req, err := protocol.EncodeRequest(&protocol.Request{Type: typ, ID: s.id, Version: &v, Move: sdk.Move(move)})
	if err != nil {
		return &s.ev, err
	}
	if err := s.ws.WriteMessage(websocket.TextMessage, req); err != nil {
		return &s.ev, err
	}
	for {
		ev, err := s.read()
		if err != nil {
			return ev, err
		}
		if (ev.Type == protocol.EvAck || ev.Type == protocol.EvRefused) && ev.ID == s.id {
			return ev, nil
		}
	}
}

// loadRoom is one room and its two players, driven by one goroutine.
type loadRoom struct {
	id      string
	s       [2]*seat
	rng     *rand.Rand
	rtt     []time.Duration // send → ack of each confirmed move
	moves   int64
	actions int64
	// Paced (-rate): the next move is due at due, the one after it every
	// interval; fromDue is due → ack of each confirmed move, and late
	// counts the moves that were due before the room was ready to send.
	due      time.Time
	interval time.Duration
	fromDue  []time.Duration
	late     int64
	unsent   int64 // moves due before the end that were not sent
	errs     map[string]int
	firstErr string
	move     []byte // the move being played (a copy: the seat's legal list is refilled by the next read)
}

func newRoom(ctx context.Context, c *client.Client, variant string, n uint64) (*loadRoom, error) {
	return newRoomFrom(ctx, c, variant, n, nil)
}

// newRoomFrom is newRoom with the players' sockets opened from local (nil:
// the system's choice).
func newRoomFrom(ctx context.Context, c *client.Client, variant string, n uint64, local net.IP) (*loadRoom, error) {
	cr, err := c.CreateRoom(ctx, variant, nil)
	if err != nil {
		return nil, err
	}
	r := &loadRoom{id: cr.Room, rng: rand.New(rand.NewPCG(n, 0x6c6f6164)), errs: map[string]int{}}
	for i, key := range []string{cr.SeatKey, ""} {
		p := c.Player(cr.Room, key)
		p.NetDial = dialBuffered
		if local != nil {
			d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: local}}
			p.NetDial = func(network, addr string) (net.Conn, error) {
				c, err := d.Dial(network, addr)
				if err != nil {
					return nil, err
				}
				return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, 16<<10)}, nil
			}
		}
		if err := p.Connect(ctx); err != nil {
			r.close()
			return nil, err
		}
		s := seatOf(p)
		r.s[i] = s
	}
	if r.s[0].seat != 0 || r.s[1].seat != 1 {
		r.close()
		return nil, fmt.Errorf("room %s: seats %d and %d", r.id, r.s[0].seat, r.s[1].seat)
	}
	// The host sees the guest's join (and presence) before play starts.
	if err := r.s[0].syncTo(r.s[1].version); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

func (r *loadRoom) close() {
	if r == nil {
		return
	}
	for _, s := range r.s {
		if s != nil {
			s.p.Close()
		}
	}
}

func (r *loadRoom) fail(msg string) {
	if r.firstErr == "" {
		r.firstErr = msg
	}
}

// playAll plays every room at once until end, or until maxMoves moves are
// confirmed in all. At rate > 0 moves are paced: room i's first move is
// due at start + (i+1)·interval/len(rooms), each next one interval after
// the last was due, interval = len(rooms)/rate; a paced room returns at
// end.
func playAll(rooms []*loadRoom, start, end time.Time, maxPly int, maxMoves int64, rate float64) {
	if rate > 0 {
		iv := interval(len(rooms), rate)
		for i, r := range rooms {
			r.interval = iv
			r.due = start.Add(time.Duration(int64(iv) * int64(i+1) / int64(len(rooms))))
		}
	}
	var confirmed atomic.Int64
	var wg sync.WaitGroup
	for _, r := range rooms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.play(end, maxPly, maxMoves, &confirmed)
		}()
	}
	wg.Wait()
}

// interval is the time between one room's moves when rooms together offer
// rate moves/s.
func interval(rooms int, rate float64) time.Duration {
	return time.Duration(float64(rooms) / rate * float64(time.Second))
}

// play makes moves until end (or the count): the player to move picks one
// of its legal moves, sends it (paced: when it is due) and waits for its
// ack; the other reads the event. A finished game (or one at maxPly,
// resigned) gets a new round by consent.
func (r *loadRoom) play(end time.Time, maxPly int, maxMoves int64, confirmed *atomic.Int64) {
	for _, s := range r.s {
		s.ws.SetReadDeadline(end.Add(30 * time.Second))
	}
	refusals := 0
	broken := func(what string, err error) {
		r.errs[what]++
		r.fail(fmt.Sprintf("%s: %v", what, err))
	}
	if r.interval > 0 {
		defer func() {
			if r.due.Before(end) && confirmed.Load() < maxMoves { // behind (or broken), not stopped by -moves
				r.unsent = int64((end.Sub(r.due) + r.interval - 1) / r.interval)
			}
			time.Sleep(time.Until(end))
		}()
	}
	for time.Now().Before(end) && confirmed.Load() < maxMoves && refusals < 10 {
		a, b := r.s[0], r.s[1]
		if a.over {
			asker, other := a, b
			if !a.pending {
				ev, err := asker.do("newRound", nil)
				if err != nil {
					broken("socket", err)
					return
				}
				if ev.Type == "refused" {
					r.errs["refused:"+ev.Code]++
					r.fail("newRound refused: " + ev.Code + " " + ev.Message)
					refusals++
				} else {
					r.actions++
				}
				if err := other.syncTo(asker.version); err != nil {
					broken("socket", err)
					return
				}
			}
			ev, err := other.do("accept", nil)
			if err != nil {
				broken("socket", err)
				return
			}
			if ev.Type == "refused" {
				r.errs["refused:"+ev.Code]++
				r.fail("accept refused: " + ev.Code + " " + ev.Message)
				refusals++
			} else {
				r.actions++
			}
			if err := asker.syncTo(other.version); err != nil {
				broken("socket", err)
				return
			}
			continue
		}
		mover, other := a, b
		if !a.toMove {
			mover, other = b, a
		}
		if !mover.toMove {
			broken("nobody_to_move", fmt.Errorf("version %d: neither seat is to move", a.version))
			return
		}
		typ := "move"
		r.move = r.move[:0]
		if mover.ply >= maxPly || mover.legal.len() == 0 {
			typ = "resign"
		} else {
			r.move = append(r.move, mover.legal.at(r.rng.IntN(mover.legal.len()))...)
		}
		late := false
		if r.interval > 0 {
			// Paced: wait for the due time, or send at once when late.
			if !r.due.Before(end) {
				return
			}
			if d := time.Until(r.due); d > 0 {
				time.Sleep(d)
			} else {
				late = true
			}
		}
		t0 := time.Now()
		ev, err := mover.do(typ, r.move)
		if err != nil {
			broken("socket", err)
			return
		}
		if ev.Type == "refused" || ev.Duplicate {
			code := "refused:" + ev.Code
			if ev.Duplicate {
				code = "duplicate_ack"
			}
			r.errs[code]++
			r.fail(fmt.Sprintf("%s %q at version %d: %s %s", typ, r.move, ev.Version, ev.Code, ev.Message))
			refusals++
		} else {
			t1 := time.Now()
			r.rtt = append(r.rtt, t1.Sub(t0))
			if r.interval > 0 {
				r.fromDue = append(r.fromDue, t1.Sub(r.due))
				if late {
					r.late++
				}
				r.due = r.due.Add(r.interval)
			}
			r.moves++
			confirmed.Add(1)
		}
		if err := other.syncTo(mover.version); err != nil {
			broken("socket", err)
			return
		}
	}
}

// moveList is a seat's legal moves' texts, one after another in b, the
// i-th ending at end[i]; its buffers are reused from one view to the next.
type moveList struct {
	b   []byte
	end []int32
}

func (m *moveList) len() int { return len(m.end) }

// at is the i-th move; it aliases the list.
func (m *moveList) at(i int) []byte {
	lo := int32(0)
	if i > 0 {
		lo = m.end[i-1]
	}
	return m.b[lo:m.end[i]]
}

func (m *moveList) add(s []byte) {
	m.b = append(m.b, s...)
	m.end = append(m.end, int32(len(m.b)))
}

func (m *moveList) reset() { m.b, m.end = m.b[:0], m.end[:0] }
