package main

// The Yonin mode of the load command (`load yonin`): Yonin rooms of two
// players and two computer seats, whose computer moves the host thinks
// from its pool, while 2-player rooms play as in the default mode at the
// same time. It prints the round trip of the humans' moves in both kinds
// of room (send → ack), so one sees whether computer seats thinking in a
// hundred rooms slow anyone's move.
//
//	go -C tools run ./load yonin -yonin 100 -rooms 1000 -duration 30s

import (
	"github.com/banmen/banmen/tools/internal/hostproc"

	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/sdk"
)

type yoninOptions struct {
	bin      string
	yonin    int
	rooms    int
	level    string
	duration time.Duration
	parallel int
	maxPly   int
	keep     bool
}

func parseYonin(args []string, getenv func(string) string, stderr io.Writer) (yoninOptions, error) {
	var o yoninOptions
	fs := flag.NewFlagSet("load yonin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	bin := hostproc.BinDir(getenv)
	fs.StringVar(&o.bin, "bin", bin, "the built host and plugins (`make build`)")
	fs.IntVar(&o.yonin, "yonin", 100, "Yonin rooms: two players and two computer seats each")
	fs.IntVar(&o.rooms, "rooms", 1000, "2-player shogi rooms playing at the same time (0: none)")
	fs.StringVar(&o.level, "level", "medium", "the computer seats' level")
	fs.DurationVar(&o.duration, "duration", 30*time.Second, "how long the rooms play")
	fs.IntVar(&o.parallel, "parallel", 32, "rooms created and connected at once while setting up")
	fs.IntVar(&o.maxPly, "max-ply", 160, "a 2-player game is resigned at this ply (then a new round)")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary data directory and host log")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.yonin < 1 || o.rooms < 0 || o.duration <= 0 || o.parallel < 1 {
		return o, errors.New("-yonin, -duration and -parallel must be positive, -rooms not negative")
	}
	return o, nil
}

// runYonin is `load yonin`.
func runYonin(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	o, err := parseYonin(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	out := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	h, stop, err := startHost(ctx, o.bin, o.keep, nil, nil, out, stderr)
	if err != nil {
		return err
	}
	defer stop()
	c := client.New(h.URL, nil)

	pairs := make([]*loadRoom, o.rooms)
	if err := parallel(ctx, o.rooms, o.parallel, func(i int) error {
		r, err := newRoom(ctx, c, "shogi", uint64(i))
		pairs[i] = r
		return err
	}); err != nil {
		return fmt.Errorf("set up 2-player rooms: %w", err)
	}
	defer func() {
		for _, r := range pairs {
			r.close()
		}
	}()
	yrooms := make([]*yoninRoom, o.yonin)
	if err := parallel(ctx, o.yonin, o.parallel, func(i int) error {
		r, err := newYoninRoom(ctx, c, o.level, uint64(i))
		yrooms[i] = r
		return err
	}); err != nil {
		return fmt.Errorf("set up Yonin rooms: %w", err)
	}
	defer func() {
		for _, r := range yrooms {
			r.close()
		}
	}()

	cpu0, _ := treeCPU(h.PID())
	start := time.Now()
	end := start.Add(o.duration)
	var confirmed atomic.Int64
	var wg sync.WaitGroup
	for _, r := range pairs {
		wg.Add(1)
		go func() { defer wg.Done(); r.play(end, o.maxPly, 1<<62, &confirmed) }()
	}
	for _, r := range yrooms {
		wg.Add(1)
		go func() { defer wg.Done(); r.play(end) }()
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu1, _ := treeCPU(h.PID())

	var prtt, yrtt []time.Duration
	var pmoves, ymoves, cmoves int64
	errs := map[string]int{}
	for _, r := range pairs {
		prtt = append(prtt, r.rtt...)
		pmoves += r.moves
		for k, n := range r.errs {
			errs[k] += n
		}
	}
	for _, r := range yrooms {
		yrtt = append(yrtt, r.rtt...)
		ymoves += int64(len(r.rtt))
		cmoves += r.computer
		for k, n := range r.errs {
			errs["yonin:"+k] += n
		}
	}
	slices.Sort(prtt)
	slices.Sort(yrtt)
	nerr := 0
	for _, n := range errs {
		nerr += n
	}
	out("load yonin: %d Yonin rooms (2 players, 2 computer seats at %s) and %d shogi rooms (2 players) for %s, %s",
		o.yonin, o.level, o.rooms, elapsed.Round(time.Millisecond), h.URL)
	out("2-player rooms:  %d human moves (%.0f/s); round trip p50 %s  p99 %s  max %s",
		pmoves, float64(pmoves)/elapsed.Seconds(), pct(prtt, 0.5), pct(prtt, 0.99), pct(prtt, 1))
	out("Yonin rooms:     %d human moves; round trip p50 %s  p99 %s  max %s",
		ymoves, pct(yrtt, 0.5), pct(yrtt, 0.99), pct(yrtt, 1))
	out("computer moves:  %d (%.1f/s) in the Yonin rooms", cmoves, float64(cmoves)/elapsed.Seconds())
	var busy time.Duration
	for n, d := range cpu1 {
		busy += d - cpu0[n]
	}
	out("server CPU:      %.2f of %d cores busy", busy.Seconds()/elapsed.Seconds(), nproc())
	out("errors:          %d %s", nerr, fmtErrs(errs))
	if nerr > 0 {
		for _, r := range yrooms {
			if r.firstErr != "" {
				out("first error (Yonin room %s): %s", r.id, r.firstErr)
				break
			}
		}
		return fmt.Errorf("%d errors", nerr)
	}
	return nil
}

// yoninRoom is a Yonin room of two players (seats 0 and 1) and the
// computer in seats 2 and 3, driven by one goroutine: seat 0 reads every
// event; the player to move moves; a finished game gets a new round.
type yoninRoom struct {
	id       string
	s        [2]*seat
	rng      *rand.Rand
	rtt      []time.Duration
	plies    int64 // of the rounds finished
	computer int64
	errs     map[string]int
	firstErr string
}

func newYoninRoom(ctx context.Context, c *client.Client, level string, n uint64) (*yoninRoom, error) {
	cr, err := c.CreateRoom(ctx, "yonin", sdk.Options{sdk.SettingLevel: level})
	if err != nil {
		return nil, err
	}
	r := &yoninRoom{id: cr.Room, rng: rand.New(rand.NewPCG(n, 0x796f6e69)), errs: map[string]int{}}
	for i, key := range []string{cr.SeatKey, ""} {
		p := c.Player(cr.Room, key)
		p.NetDial = dialBuffered
		if err := p.Connect(ctx); err != nil {
			r.close()
			return nil, err
		}
		r.s[i] = seatOf(p)
	}
	if err := r.s[0].syncTo(r.s[1].version); err != nil {
		r.close()
		return nil, err
	}
	ev, err := r.s[0].do("start", nil)
	if err != nil || ev.Type != "ack" {
		r.close()
		return nil, fmt.Errorf("start room %s: %v %s %s", r.id, err, ev.Code, ev.Message)
	}
	return r, nil
}

func (r *yoninRoom) close() {
	if r == nil {
		return
	}
	for _, s := range r.s {
		if s != nil {
			s.p.Close()
		}
	}
}

func (r *yoninRoom) fail(what string, err error) {
	r.errs[what]++
	if r.firstErr == "" {
		r.firstErr = fmt.Sprintf("%s: %v", what, err)
	}
}

func (r *yoninRoom) play(end time.Time) {
	a, b := r.s[0], r.s[1]
	for _, s := range r.s {
		s.ws.SetReadDeadline(end.Add(30 * time.Second))
	}
	for time.Now().Before(end) {
		if a.over {
			if err := r.newRound(); err != nil {
				r.fail("socket", err)
				return
			}
			continue
		}
		mover := a
		switch {
		case a.toMove:
		case b.toMove || b.version < a.version:
			// b may be to move at a's version: b catches up and looks.
			if err := b.syncTo(a.version); err != nil {
				r.fail("socket", err)
				return
			}
			if !b.toMove {
				if err := r.awaitComputer(); err != nil {
					r.fail("socket", err)
					return
				}
				continue
			}
			mover = b
		default:
			if err := r.awaitComputer(); err != nil {
				r.fail("socket", err)
				return
			}
			continue
		}
		if mover.legal.len() == 0 {
			r.fail("no_legal_move", fmt.Errorf("seat %d to move at version %d has none", mover.seat, mover.version))
			return
		}
		t0 := time.Now()
		ev, err := mover.do("move", mover.legal.at(r.rng.IntN(mover.legal.len())))
		if err != nil {
			r.fail("socket", err)
			return
		}
		if ev.Type == "refused" {
			// stale: a computer move (its time was up) came first; look again.
			if ev.Code != "stale" {
				r.fail("refused:"+ev.Code, errors.New(ev.Message))
			}
		} else {
			r.rtt = append(r.rtt, time.Since(t0))
		}
		if err := a.syncTo(mover.version); err != nil {
			r.fail("socket", err)
			return
		}
	}
	// Every ply the players did not make, the computer did.
	r.computer = r.plies + int64(a.ply) - int64(len(r.rtt))
}

// awaitComputer reads seat 0's next event (a computer seat's move, when
// one is thinking).
func (r *yoninRoom) awaitComputer() error {
	_, err := r.s[0].read()
	return err
}

// newRound asks for a new round (seat 0) and accepts it (seat 1).
func (r *yoninRoom) newRound() error {
	a, b := r.s[0], r.s[1]
	r.plies += int64(a.ply)
	if !a.pending {
		if _, err := a.do("newRound", nil); err != nil {
			return err
		}
	}
	if err := b.syncTo(a.version); err != nil {
		return err
	}
	if _, err := b.do("accept", nil); err != nil {
		return err
	}
	return a.syncTo(b.version)
}
