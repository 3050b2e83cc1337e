package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Browsers are the browser processes a run keeps between scenarios, as
// Playwright keeps one browser per worker: starting Firefox takes seconds,
// and a scenario often lasts less than ten. A scenario takes the processes
// it needs (one of each engine its actors use; in WebKit one
// WebKitWebDriver an actor), plays in them, and gives them back for the
// next one; at most as many of each are started as scenarios run at once.
//
// Each actor still gets a browser of its own, isolated as another device
// would be: in Chromium a new browser context (an incognito-like profile:
// cookies, storage, cache), in Firefox a new user context, both removed
// with everything in them at the scenario's end; in WebKit a new WebDriver
// session, which starts a new MiniBrowser with a fresh, ephemeral profile.
// So nothing one scenario left (a cookie, localStorage) is seen by the
// next.
//
// A process that a failed attempt used is not kept (the next attempt gets
// a fresh one), nor one that has ended or no longer answers.
//
// Run keeps its own for the run when Config.Browsers is nil. Give several
// runs one Browsers (a test that calls Run per scenario) to share them,
// and Close it at the end. Safe for concurrent use.
type Browsers struct {
	mu     sync.Mutex
	idle   map[string][]pooled
	closed bool
	// started counts the processes started, by engine, for the tests.
	started map[string]int

	xmu   sync.Mutex
	xvfb  string // the X display WebKit draws on, started once
	xoff  func()
	xdone <-chan struct{}
}

// NewBrowsers returns an empty set of browsers: a process is started when a
// scenario first needs it.
func NewBrowsers() *Browsers {
	return &Browsers{idle: map[string][]pooled{}, started: map[string]int{}}
}

// pooled is a browser process (or WebKit's driver) a scenario can give
// back for the next one.
type pooled interface {
	// usable says whether it can serve another scenario: its process
	// runs and nothing it did failed.
	usable() bool
	close()
}

// Close ends every browser process kept (and the X display of WebKit).
// The browsers a scenario still plays in are ended when it gives them
// back.
func (bs *Browsers) Close() {
	bs.mu.Lock()
	idle := bs.idle
	bs.idle, bs.closed = map[string][]pooled{}, true
	bs.mu.Unlock()
	var wg sync.WaitGroup
	for _, ps := range idle {
		for _, p := range ps {
			wg.Go(p.close)
		}
	}
	wg.Wait()
	bs.xmu.Lock()
	defer bs.xmu.Unlock()
	if bs.xoff != nil {
		bs.xoff()
		bs.xoff, bs.xvfb = nil, ""
	}
}

// get takes an idle process of the kind key, or starts one.
func (bs *Browsers) get(key, engine string, start func() (pooled, error)) (pooled, error) {
	for {
		bs.mu.Lock()
		if bs.closed {
			bs.mu.Unlock()
			return nil, errors.New("the browsers are closed")
		}
		ps := bs.idle[key]
		if len(ps) == 0 {
			bs.started[engine]++
			bs.mu.Unlock()
			return start()
		}
		p := ps[len(ps)-1]
		bs.idle[key] = ps[:len(ps)-1]
		bs.mu.Unlock()
		if p.usable() {
			return p, nil
		}
		p.close()
	}
}

// put gives a process back, or ends it when it cannot serve again.
func (bs *Browsers) put(key string, p pooled, keep bool) {
	if keep && p.usable() {
		bs.mu.Lock()
		if !bs.closed {
			bs.idle[key] = append(bs.idle[key], p)
			bs.mu.Unlock()
			return
		}
		bs.mu.Unlock()
	}
	p.close()
}

// starts is how many processes of the engine were started so far.
func (bs *Browsers) starts(engine string) int {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	return bs.started[engine]
}

// share holds what a scenario's browsers share: the processes it took
// from the run's Browsers, given back at its end, and what else it must
// close.
type share struct {
	pool *Browsers

	mu     sync.Mutex
	things map[string]any
	taken  []takenProc
	// keep is cleared when the attempt failed: its processes are ended,
	// not kept for the next scenario.
	keep    atomic.Bool
	closers []func()
}

type takenProc struct {
	key string
	p   pooled
}

func newShare(pool *Browsers) *share {
	sh := &share{pool: pool, things: map[string]any{}}
	sh.keep.Store(true)
	return sh
}

// take is the scenario's process named name (its Firefox, an actor's
// WebKitWebDriver), taken from the pool under key at its first use.
func (sh *share) take(name, key, engine string, start func() (pooled, error)) (pooled, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if p, ok := sh.things[name].(pooled); ok {
		return p, nil
	}
	p, err := sh.pool.get(key, engine, start)
	if err != nil {
		return nil, err
	}
	sh.things[name] = p
	sh.taken = append(sh.taken, takenProc{key, p})
	return p, nil
}

// close gives the processes back (or ends them, after a failure) and runs
// the closers.
func (sh *share) close() {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for i := len(sh.closers) - 1; i >= 0; i-- {
		sh.closers[i]()
	}
	var wg sync.WaitGroup
	keep := sh.keep.Load()
	for _, t := range sh.taken {
		wg.Go(func() { sh.pool.put(t.key, t.p, keep) })
	}
	wg.Wait()
	sh.closers, sh.taken, sh.things = nil, nil, map[string]any{}
}

// display is the X display WebKit draws on: $DISPLAY when headed, else an
// Xvfb the Browsers start once, for every scenario and actor.
func (bs *Browsers) display(ctx context.Context, headed bool, limit time.Duration) (string, error) {
	if headed {
		d := os.Getenv("DISPLAY")
		if d == "" {
			return "", errors.New("headed WebKit needs a display: DISPLAY is not set")
		}
		return d, nil
	}
	bs.xmu.Lock()
	defer bs.xmu.Unlock()
	if bs.xvfb != "" {
		select {
		case <-bs.xdone:
			// It ended: a new one (on another display) for what comes.
		default:
			return bs.xvfb, nil
		}
	}
	d, stop, done, err := startXvfb(ctx, limit)
	if err != nil {
		return "", fmt.Errorf("start Xvfb: %w", err)
	}
	bs.xvfb, bs.xoff, bs.xdone = d, stop, done
	return d, nil
}
