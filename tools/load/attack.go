package main

import (
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
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/sdk"
)

// The attack mode: rooms play closed loop for -duration alone, then for
// -duration again while anonymous floods run against the same host, and
// the rooms' moves/s and p50/p99 are printed for both halves of the one
// run. The floods are those of platform/hostiletest: 110 KB imports of a
// 22,000-ply game, imports at the move cap, forged states, computer moves
// asked for, sockets opened and closed; from one address (127.0.0.2) and
// from -addrs others (127.0.0.10 on). The host runs the shipped
// per-address limits for anonymous calls (only the rooms' own address,
// 127.0.0.1, has its room and socket budgets raised, as in the default
// mode).
//
//	go run ./platform/cmd/load attack -rooms 50 -duration 10s

type attackOptions struct {
	bin, variant string
	rooms        int
	duration     time.Duration
	loops, addrs int
	maxPly       int
	kinds        string
}

func parseAttack(args []string, getenv func(string) string, stderr io.Writer) (attackOptions, error) {
	var o attackOptions
	fs := flag.NewFlagSet("load attack", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bin := getenv("BANMEN_BIN")
	if bin == "" {
		bin = "bin"
	}
	fs.StringVar(&o.bin, "bin", bin, "the built host and plugins (`make build`)")
	fs.StringVar(&o.variant, "variant", "shogi", "the variant the rooms play (the floods target shogi)")
	fs.IntVar(&o.rooms, "rooms", 50, "rooms playing at once (two players each)")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "how long the rooms play alone, and then again under the floods")
	fs.IntVar(&o.loops, "loops", 6, "loops posting the 110 KB import from the one address (others: a third as many each)")
	fs.IntVar(&o.addrs, "addrs", 40, "other addresses flooding, one kind each (127.0.0.10 on)")
	fs.IntVar(&o.maxPly, "max-ply", 160, "the player to move resigns at this ply (then a new round)")
	fs.StringVar(&o.kinds, "kinds", "", "the floods to run, comma-separated (empty: all): import-long, import-cap, forged, suggest, sockets")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.rooms < 1 || o.duration <= 0 || o.loops < 0 || o.addrs < 0 || o.addrs > 200 {
		return o, errors.New("-rooms and -duration must be positive, -addrs at most 200")
	}
	if len((&flooder{}).kinds(o.kinds)) == 0 {
		return o, fmt.Errorf("-kinds %q names no flood", o.kinds)
	}
	return o, nil
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
	// The shipped per-address budgets for anonymous calls (hostArgs
	// raises them for the default mode).
	h, stop, err := startHost(ctx, o.bin, false, nil, []string{"-limits.api_calls_per_minute", "600", "-limits.suggests_per_minute", "60"}, out, stderr)
	if err != nil {
		return err
	}
	defer stop()
	c := client.New(h.URL, nil)
	rooms := make([]*loadRoom, o.rooms)
	if err := parallel(ctx, o.rooms, 32, func(i int) error {
		r, err := newRoom(ctx, c, o.variant, uint64(i))
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

	type cpu struct{ host, plugins, generator time.Duration }
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
		c.generator = selfCPU()
		return c
	}
	var cpus []cpu
	phase := func(name string) (moves int64, rtt []time.Duration, errs map[string]int) {
		c0 := cpuNow()
		defer func() {
			c1 := cpuNow()
			cpus = append(cpus, cpu{c1.host - c0.host, c1.plugins - c0.plugins, c1.generator - c0.generator})
		}()
		marks := make([]int, len(rooms))
		movesBefore := int64(0)
		for i, r := range rooms {
			marks[i] = len(r.rtt)
			movesBefore += r.moves
		}
		start := time.Now()
		playAll(rooms, start, start.Add(o.duration), o.maxPly, 1<<62, 0)
		errs = map[string]int{}
		for i, r := range rooms {
			rtt = append(rtt, r.rtt[marks[i]:]...)
			moves += r.moves
			for k, n := range r.errs {
				errs[k] += n
			}
			r.errs = map[string]int{}
		}
		slices.Sort(rtt)
		return moves - movesBefore, rtt, errs
	}
	out("%d %s rooms on %s, %v alone, then %v under the floods (1 + %d addresses)", o.rooms, o.variant, h.URL, o.duration, o.duration, o.addrs)
	qm, qrtt, qerrs := phase("alone")

	flood := newFlooder(h.URL, g.State)
	fctx, stopFlood := context.WithCancel(ctx)
	var wg sync.WaitGroup
	kinds := flood.kinds(o.kinds)
	start := func(ip, kind string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			flood.loop(fctx, ip, kind)
		}()
	}
	for _, kind := range kinds {
		n := max(1, o.loops/3)
		if kind == "import 22,000 plies" {
			n = o.loops
		}
		for range n {
			start("127.0.0.2", kind)
		}
	}
	for i := range o.addrs {
		start(fmt.Sprintf("127.0.0.%d", 10+i), kinds[i%len(kinds)])
	}
	am, artt, aerrs := phase("attacked")
	stopFlood()
	wg.Wait()

	out("%-18s %9s %10s %10s %11s %11s %11s  %s", "rooms", "moves/s", "p50", "p99", "host CPU", "plugins", "generator", "refusals and errors")
	for i, p := range []struct {
		name  string
		moves int64
		rtt   []time.Duration
		errs  map[string]int
	}{{"alone", qm, qrtt, qerrs}, {"under the floods", am, artt, aerrs}} {
		c := cpus[i]
		out("%-18s %9.0f %10s %10s %11s %11s %11s  %s", p.name, float64(p.moves)/o.duration.Seconds(), pct(p.rtt, 0.50), pct(p.rtt, 0.99),
			c.host.Round(10*time.Millisecond), c.plugins.Round(10*time.Millisecond), c.generator.Round(10*time.Millisecond), fmtErrs(p.errs))
	}
	out("floods (answers by status):")
	for _, kind := range kinds {
		out("  %-22s %v", kind, flood.counts(kind))
	}
	return nil
}

// flooder sends the floods and counts their answers.
type flooder struct {
	base            string
	long, capped    []byte
	forged, suggest []byte
	mu              sync.Mutex
	answers         map[string]map[int]int
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
	if f.answers[kind] == nil {
		f.answers[kind] = map[int]int{}
	}
	f.answers[kind][status]++
}

func (f *flooder) counts(kind string) map[int]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.answers[kind]
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
