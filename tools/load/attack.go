package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/tools/internal/hostproc"
)

// The attack mode: rooms play closed loop in alternating halves of
// -duration, alone and under anonymous floods (alone, attacked, alone,
// attacked, ... -halves in all), against the one host, and the rooms'
// moves/s and p50/p99 are printed for each half and for the alone and the
// attacked halves together. The floods are those of
// platform/hostiletest: 110 KB imports of a 22,000-ply game, imports at
// the move cap, forged states, computer moves asked for, sockets opened
// and closed; from one address (127.0.0.2) and from -addrs others
// (127.0.0.10 on). The host runs the shipped per-address limits on
// anonymous calls, rooms created and sockets opened; each room is created
// and played from an address of its own (127.1.0.1 on), which those
// budgets allow. Only the per-socket budgets of messages and actions are
// raised, as in the default mode, for the players' closed loop.
//
// The floods are sent by a process of their own, this command run again
// as "attack-flood" for each attacked half, at the lowest CPU priority
// (-flood-nice, 19): it stands in for the attacker's machine, whose CPU is
// not the site's. On a machine of its own the site would not share its
// cores with the attacker's clients; at nice 19 those clients get only
// the CPU the host, its plugins and the rooms' players leave, and the
// rates they reached are printed beside the rooms' figures, so that a
// reader sees what the site withstood.
//
//	go -C tools run ./load attack -rooms 30 -duration 5s -halves 6

type attackOptions struct {
	bin, variant string
	rooms        int
	duration     time.Duration
	halves       int
	loops, addrs int
	maxPly       int
	kinds        string
	floodNice    int
	floodApart   bool
	cpuprofile   string
}

func parseAttack(args []string, getenv func(string) string, stderr io.Writer) (attackOptions, error) {
	var o attackOptions
	fs := flag.NewFlagSet("load attack", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.bin, "bin", hostproc.BinDir(getenv), "the built host and plugins (`make build`)")
	fs.StringVar(&o.variant, "variant", "shogi", "the variant the rooms play (the floods target shogi)")
	fs.IntVar(&o.rooms, "rooms", 50, "rooms playing at once (two players each)")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "how long each half lasts")
	fs.IntVar(&o.halves, "halves", 4, "halves in all, alternating alone and under the floods, alone first (at least 2)")
	fs.IntVar(&o.loops, "loops", 6, "loops posting the 110 KB import from the one address (others: a third as many each)")
	fs.IntVar(&o.addrs, "addrs", 40, "other addresses flooding, one kind each (127.0.0.10 on)")
	fs.IntVar(&o.maxPly, "max-ply", 160, "the player to move resigns at this ply (then a new round)")
	fs.StringVar(&o.kinds, "kinds", "", "the floods to run, comma-separated (empty: all): import-long, import-cap, forged, suggest, sockets")
	fs.IntVar(&o.floodNice, "flood-nice", 19, "the niceness of the flood process (0: the rooms' own priority)")
	fs.BoolVar(&o.floodApart, "flood-apart", false, "start the flood process in a session of its own, its session's group at -flood-nice too (Linux autogroup): its CPU is then not charged to the rooms' group")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write the started host's CPU profile of the whole run here (BANMEN_CPUPROFILE)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.rooms < 1 || o.duration <= 0 || o.loops < 0 || o.addrs < 0 || o.addrs > 200 || o.halves < 2 || o.floodNice < 0 || o.floodNice > 19 {
		return o, errors.New("-rooms and -duration must be positive, -addrs at most 200, -halves at least 2, -flood-nice 0 to 19")
	}
	if len((&flooder{}).kinds(o.kinds)) == 0 {
		return o, fmt.Errorf("-kinds %q names no flood", o.kinds)
	}
	return o, nil
}

// attackHalf is what one half measured.
type attackHalf struct {
	attacked bool
	moves    int64
	rtt      []time.Duration
	errs     map[string]int
	host     time.Duration // the host's CPU
	plugins  time.Duration // its plugins'
	players  time.Duration // the rooms' players' (this process's)
	flood    *floodReport  // attacked halves: what the flood process sent and got
	// Run-queue waits (runnable, not running) of the host's threads, its
	// rooms' plugin processes, its niced (anonymous) plugin processes,
	// and the rooms' players.
	waits       hostproc.Waits
	playersWait time.Duration
}

func runAttack(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o, err := parseAttack(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	out := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	env, err := pathSetting("BANMEN_CPUPROFILE", o.cpuprofile)
	if err != nil {
		return err
	}
	// The shipped per-address budgets (platform/internal/config's
	// defaults), which hostArgs raises for the default mode.
	h, stop, err := startHost(ctx, o.bin, false, env, []string{"-limits.api_calls_per_minute", "600",
		"-limits.suggests_per_minute", "60", "-limits.rooms_per_minute", "10", "-limits.sockets_per_minute", "60"}, out, stderr)
	if err != nil {
		return err
	}
	defer stop()
	c := client.New(h.URL, nil)
	rooms := make([]*loadRoom, o.rooms)
	if err := parallel(ctx, o.rooms, 32, func(i int) error {
		ip := roomAddr(i)
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}
		rc := client.New(h.URL, &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: d.DialContext}})
		r, err := newRoomFrom(ctx, rc, o.variant, uint64(i), ip)
		rooms[i] = r
		return err
	}); err != nil {
		for _, r := range rooms {
			r.close()
		}
		return err
	}
	defer func() {
		for _, r := range rooms {
			r.close()
		}
	}()
	g, err := c.Start(ctx, "shogi", nil)
	if err != nil {
		return err
	}

	type cpu struct{ host, plugins, players time.Duration }
	cpuNow := func() cpu {
		var c cpu
		t, _ := treeCPU(h.PID())
		for name, d := range t {
			if name == "" {
				c.host = d
			} else {
				c.plugins += d
			}
		}
		c.players = selfCPU()
		return c
	}
	waitsNow := func() (hostproc.Waits, time.Duration) {
		w, _ := hostproc.TreeWaits(h.PID())
		self, _ := hostproc.RunQueueWait(os.Getpid())
		return w, self
	}
	play := func(half *attackHalf) {
		c0 := cpuNow()
		w0, p0 := waitsNow()
		marks := make([]int, len(rooms))
		movesBefore := int64(0)
		for i, r := range rooms {
			marks[i] = len(r.rtt)
			movesBefore += r.moves
		}
		start := time.Now()
		playAll(rooms, start, start.Add(o.duration), o.maxPly, 1<<62, 0)
		half.errs = map[string]int{}
		for i, r := range rooms {
			half.rtt = append(half.rtt, r.rtt[marks[i]:]...)
			half.moves += r.moves
			for k, n := range r.errs {
				half.errs[k] += n
			}
			r.errs = map[string]int{}
		}
		half.moves -= movesBefore
		slices.Sort(half.rtt)
		c1 := cpuNow()
		w1, p1 := waitsNow()
		half.host, half.plugins, half.players = c1.host-c0.host, c1.plugins-c0.plugins, c1.players-c0.players
		half.waits = hostproc.Waits{Own: w1.Own - w0.Own, Children: w1.Children - w0.Children, Niced: w1.Niced - w0.Niced}
		half.playersWait = p1 - p0
	}
	fargs := []string{"-base", h.URL, "-state", base64.StdEncoding.EncodeToString(g.State), "-loops", fmt.Sprint(o.loops),
		"-addrs", fmt.Sprint(o.addrs), "-kinds", o.kinds, "-nice", fmt.Sprint(o.floodNice)}
	if o.floodApart {
		fargs = append(fargs, "-apart")
	}
	apart := ""
	if o.floodApart {
		apart = " in a session group of its own"
	}
	out("%d %s rooms on %s, %d halves of %v, alone first; floods from 1 + %d addresses by a process at nice %d%s; load average %s",
		o.rooms, o.variant, h.URL, o.halves, o.duration, o.addrs, o.floodNice, apart, loadAverage())
	halves := make([]attackHalf, o.halves)
	for i := range halves {
		half := &halves[i]
		half.attacked = i%2 == 1
		if !half.attacked {
			play(half)
			continue
		}
		f, err := startFlood(ctx, fargs, stderr)
		if err != nil {
			return err
		}
		play(half)
		if half.flood, err = f.stop(); err != nil {
			return err
		}
		// Calls the floods left in the plugins run to their end (their
		// clients gone); the next alone half starts when the plugins
		// neither run nor wait to run (a niced process on a busy machine
		// may wait more than it runs).
		settle(ctx, func() time.Duration {
			w, _ := hostproc.TreeWaits(h.PID())
			return cpuNow().plugins + w.Niced
		})
	}

	out("%-20s %9s %10s %10s %10s %10s %10s %10s  %s", "rooms", "moves/s", "p50", "p99", "host CPU", "plugins", "players", "floods", "refusals and errors")
	line := func(name string, hs []attackHalf) []time.Duration {
		var moves int64
		var rtt []time.Duration
		var host, plugins, players, flood time.Duration
		errs := map[string]int{}
		for _, h := range hs {
			moves += h.moves
			rtt = append(rtt, h.rtt...)
			host, plugins, players = host+h.host, plugins+h.plugins, players+h.players
			if h.flood != nil {
				flood += h.flood.CPU
			}
			for k, n := range h.errs {
				errs[k] += n
			}
		}
		slices.Sort(rtt)
		secs := o.duration.Seconds() * float64(len(hs))
		floods := "-"
		if flood > 0 {
			floods = flood.Round(10 * time.Millisecond).String()
		}
		out("%-20s %9.0f %10s %10s %10s %10s %10s %10s  %s", name, float64(moves)/secs, pct(rtt, 0.50), pct(rtt, 0.99),
			host.Round(10*time.Millisecond), plugins.Round(10*time.Millisecond), players.Round(10*time.Millisecond), floods, fmtErrs(errs))
		return rtt
	}
	var alone, attacked []attackHalf
	for i, h := range halves {
		name := fmt.Sprintf("%d alone", i+1)
		if h.attacked {
			name = fmt.Sprintf("%d under the floods", i+1)
			attacked = append(attacked, h)
		} else {
			alone = append(alone, h)
		}
		line(name, []attackHalf{h})
	}
	a := line("alone", alone)
	b := line("under the floods", attacked)
	if len(a) > 0 && len(b) > 0 {
		out("p99 under the floods / alone: %.2f; p50: %.2f", ratio(b, a, 0.99), ratio(b, a, 0.50))
	}
	secs := o.duration.Seconds() * float64(len(attacked))
	sent := map[string]map[int]int{}
	for _, h := range attacked {
		for kind, m := range h.flood.Answers {
			if sent[kind] == nil {
				sent[kind] = map[int]int{}
			}
			for st, n := range m {
				sent[kind][st] += n
			}
		}
	}
	out("run-queue waits (runnable threads not running), per room move:")
	out("%-20s %12s %14s %14s %12s", "", "host", "rooms' plugin", "anon. plugins", "players")
	perMove := func(d time.Duration, moves int64) string {
		if moves == 0 {
			return "-"
		}
		return (d / time.Duration(moves)).Round(time.Microsecond).String()
	}
	wline := func(name string, hs []attackHalf) {
		var w hostproc.Waits
		var players time.Duration
		var moves int64
		for _, h := range hs {
			w.Own, w.Children, w.Niced, players = w.Own+h.waits.Own, w.Children+h.waits.Children, w.Niced+h.waits.Niced, players+h.playersWait
			moves += h.moves
		}
		out("%-20s %12s %14s %14s %12s", name, perMove(w.Own, moves), perMove(w.Children, moves), perMove(w.Niced, moves), perMove(players, moves))
	}
	wline("alone", alone)
	wline("under the floods", attacked)
	out("floods, requests/s by status over the attacked halves (-1: no answer):")
	for _, kind := range (&flooder{}).kinds(o.kinds) {
		out("  %-22s %s", kind, fmtRates(sent[kind], secs))
	}
	out("load average at the end: %s", loadAverage())
	return nil
}

// roomAddr is the loopback address room i is created and played from.
func roomAddr(i int) net.IP { return net.IPv4(127, 1, byte(i/250), byte(1+i%250)) }

// settle returns when busy (CPU used plus time waited for a CPU) grew by
// less than 10 ms over 200 ms, or after 10 s.
func settle(ctx context.Context, busy func() time.Duration) {
	last := busy()
	for range 50 {
		select {
		case <-ctx.Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
		now := busy()
		if now-last < 10*time.Millisecond {
			return
		}
		last = now
	}
}

func ratio(a, b []time.Duration, p float64) float64 {
	return float64(a[int(float64(len(a)-1)*p)]) / float64(b[int(float64(len(b)-1)*p)])
}

// fmtRates prints answers by status as rates over secs, with the total.
func fmtRates(m map[int]int, secs float64) string {
	var sts []int
	total := 0
	for st, n := range m {
		sts = append(sts, st)
		total += n
	}
	slices.Sort(sts)
	var b strings.Builder
	fmt.Fprintf(&b, "%7.0f/s:", float64(total)/secs)
	for _, st := range sts {
		fmt.Fprintf(&b, " %d %.0f/s,", st, float64(m[st])/secs)
	}
	return strings.TrimSuffix(b.String(), ",")
}

// loadAverage is the first three fields of /proc/loadavg, or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// floodReport is what the flood process prints when it ends: the answers
// it got by kind and status, and the CPU it used (filled in by its
// parent).
type floodReport struct {
	Answers map[string]map[int]int
	CPU     time.Duration `json:"-"`
}

// floodProc is a running flood process.
type floodProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// floodCommand is the command that runs the floods with args: this
// program again, as "attack-flood" (the tests run their own binary).
var floodCommand = func(args []string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.Command(self, append([]string{"attack-flood"}, args...)...), nil
}

// startFlood starts the flood process and waits until it floods.
func startFlood(ctx context.Context, args []string, stderr io.Writer) (*floodProc, error) {
	cmd, err := floodCommand(args)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = stderr
	if slices.Contains(args, "-apart") {
		setsid(cmd)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("the flood process: %w", err)
	}
	f := &floodProc{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	if l, err := f.out.ReadString('\n'); err != nil || l != "flooding\n" {
		stdin.Close()
		cmd.Wait()
		return nil, fmt.Errorf("the flood process did not start: %q %v", l, err)
	}
	return f, nil
}

// stop ends the floods (closing the process's stdin) and returns its
// report.
func (f *floodProc) stop() (*floodReport, error) {
	f.stdin.Close()
	var r floodReport
	derr := json.NewDecoder(f.out).Decode(&r)
	if err := f.cmd.Wait(); err != nil {
		return nil, fmt.Errorf("the flood process: %w", err)
	}
	if derr != nil {
		return nil, fmt.Errorf("the flood process's report: %w", derr)
	}
	r.CPU = f.cmd.ProcessState.UserTime() + f.cmd.ProcessState.SystemTime()
	return &r, nil
}

// runFlood is the flood process ("load attack-flood"): it lowers its own
// priority, floods -base until its stdin ends, and prints its report.
func runFlood(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("load attack-flood", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "", "the host")
	state := fs.String("state", "", "a state the host issued (base64)")
	loops := fs.Int("loops", 6, "")
	addrs := fs.Int("addrs", 40, "")
	kinds := fs.String("kinds", "", "")
	niceness := fs.Int("nice", 19, "")
	apartFlag := fs.Bool("apart", false, "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *apartFlag {
		if err := lowerOwnGroup(*niceness); err != nil {
			return fmt.Errorf("session group nice %d: %w", *niceness, err)
		}
	}
	if err := lowerOwnPriority(*niceness); err != nil {
		return fmt.Errorf("nice %d: %w", *niceness, err)
	}
	st, err := base64.StdEncoding.DecodeString(*state)
	if err != nil {
		return err
	}
	flood := newFlooder(*base, st)
	fctx, stopFlood := context.WithCancel(ctx)
	defer stopFlood()
	var wg sync.WaitGroup
	list := flood.kinds(*kinds)
	start := func(ip, kind string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			flood.loop(fctx, ip, kind)
		}()
	}
	for _, kind := range list {
		n := max(1, *loops/3)
		if kind == "import 22,000 plies" {
			n = *loops
		}
		for range n {
			start("127.0.0.2", kind)
		}
	}
	for i := range *addrs {
		start(fmt.Sprintf("127.0.0.%d", 10+i), list[i%len(list)])
	}
	fmt.Fprintln(stdout, "flooding")
	io.Copy(io.Discard, stdin)
	flood.mu.Lock()
	flood.stopped = true // answers that come after the half are not counted
	flood.mu.Unlock()
	stopFlood()
	wg.Wait()
	return json.NewEncoder(stdout).Encode(floodReport{Answers: flood.answers})
}

// flooder sends the floods and counts their answers.
type flooder struct {
	base            string
	long, capped    []byte
	forged, suggest []byte
	mu              sync.Mutex
	answers         map[string]map[int]int
	stopped         bool
}

func newFlooder(base string, st sdk.State) *flooder {
	f := &flooder{base: base, answers: map[string]map[int]int{}}
	f.long, _ = json.Marshal(map[string]string{"format": "sfen+usi", "text": kingsWalk(22000)})
	f.capped, _ = json.Marshal(map[string]string{"format": "sfen+usi", "text": kingsWalk(sdk.MaxRecordMoves)})
	bad := bytes.Clone(st)
	bad[len(bad)/2] ^= 1
	f.forged, _ = json.Marshal(map[string]string{"state": base64.StdEncoding.EncodeToString(bad)})
	f.suggest, _ = json.Marshal(map[string]any{"state": st, "seat": 0, "level": "hard", "thinkMillis": 1000})
	return f
}

// kinds are the floods named in list (short names, comma-separated;
// empty: all).
func (f *flooder) kinds(list string) []string {
	all := []struct{ short, name string }{{"import-long", "import 22,000 plies"}, {"import-cap", "import at the cap"},
		{"forged", "forged state"}, {"suggest", "suggest"}, {"sockets", "socket churn"}}
	var out []string
	for _, k := range all {
		if list == "" || slices.Contains(strings.Split(list, ","), k.short) {
			out = append(out, k.name)
		}
	}
	return out
}

func (f *flooder) count(kind string, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return
	}
	if f.answers[kind] == nil {
		f.answers[kind] = map[int]int{}
	}
	f.answers[kind][status]++
}

// loop floods with one kind from source address ip until ctx ends.
func (f *flooder) loop(ctx context.Context, ip, kind string) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}}
	defer hc.CloseIdleConnections()
	post := func(path string, body []byte) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.base+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		res, err := hc.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				f.count(kind, -1)
			}
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		f.count(kind, res.StatusCode)
	}
	for ctx.Err() == nil {
		switch kind {
		case "import 22,000 plies":
			post("/api/v1/games/shogi/import", f.long)
		case "import at the cap":
			post("/api/v1/games/shogi/import", f.capped)
		case "forged state":
			post("/api/v1/games/shogi/view", f.forged)
		case "suggest":
			post("/api/v1/games/shogi/suggest", f.suggest)
		case "socket churn":
			cr, err := client.New(f.base, hc).CreateRoom(ctx, "shogi", nil)
			if err != nil {
				if e, ok := client.AsError(err); ok {
					f.count(kind, e.Status)
				}
				if ctx.Err() == nil {
					time.Sleep(100 * time.Millisecond) // out of rooms: an address may make 10 a minute
				}
				continue
			}
			for ctx.Err() == nil {
				w := client.New(f.base, hc).Player(cr.Room, "")
				w.NetDial = d.Dial
				err := w.Watch(ctx)
				if e, ok := client.AsError(err); ok {
					f.count(kind, e.Status)
				} else if err == nil {
					f.count(kind, 101)
					w.Close()
				}
			}
		}
	}
}

// kingsWalk is a sfen+usi record of two bare kings walking cycles of 36
// and 35 cells, plies long (as in platform/hostiletest).
func kingsWalk(plies int) string {
	cycle := func(first byte, short bool) []string {
		cell := func(file, rank int) string { return fmt.Sprintf("%d%c", file, first+byte(rank)) }
		cells := []string{cell(9, 0)}
		for r := 0; r < 4; r++ {
			for i := 0; i < 8; i++ {
				f := 8 - i
				if r%2 == 1 {
					f = 1 + i
				}
				cells = append(cells, cell(f, r))
			}
		}
		if !short {
			cells = append(cells, cell(9, 3))
		}
		return append(cells, cell(9, 2), cell(9, 1))
	}
	s, g := cycle('f', false), cycle('a', true)
	var b strings.Builder
	b.WriteString("sfen k8/9/9/9/9/K8/9/9/9 b - 1 moves")
	for i := 0; i < plies; i++ {
		c, k := s, i/2
		if i%2 == 1 {
			c = g
		}
		b.WriteString(" " + c[k%len(c)] + c[(k+1)%len(c)])
	}
	return b.String()
}
