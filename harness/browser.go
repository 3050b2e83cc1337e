package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// browser is one actor's browser: its own process and profile, of the
// actor's engine, and the tabs the actor opened in it.
type browser struct {
	actor   Actor
	engine  string
	dev     Device
	inst    instance
	ctx     context.Context // the scenario's: driver calls end with it
	slow    time.Duration   // -slowmo
	tabs    []*tab
	current int

	mu      sync.Mutex
	console []string // every tab's console, in order, for the report
	jsErrs  []string // uncaught exceptions and console.error calls
}

// tab is one page of a browser.
type tab struct {
	n   int
	p   page
	ctx context.Context // the scenario's
	// keys are the keys pressed since the last keysFrom, for a failure's
	// message.
	keys []string
}

// key presses a key in the tab and notes it.
func (t *tab) key(k string) error {
	t.keys = append(t.keys, k)
	return t.p.key(t.ctx, k, false)
}

// keysSent says the keys pressed since the notes were last cleared, runs
// of one key counted: "Tab×3 ArrowLeft Enter".
func (t *tab) keysSent() string {
	var out []string
	for i := 0; i < len(t.keys); {
		j := i
		for j < len(t.keys) && t.keys[j] == t.keys[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, fmt.Sprintf("%s×%d", t.keys[i], j-i))
		} else {
			out = append(out, t.keys[i])
		}
		i = j
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, " ")
}

// launch starts the actor's browser with the engine's binary exe.
func launch(ctx context.Context, a Actor, engineName, exe string, sh *share, cfg *Config) (*browser, error) {
	e, ok := engines[engineName]
	if !ok {
		return nil, fmt.Errorf("no browser engine %q (have %s)", engineName, strings.Join(EngineNames(), ", "))
	}
	b := &browser{actor: a, engine: engineName, dev: a.device(), ctx: ctx}
	o := launchOptions(a, exe, sh, cfg)
	o.console = b.log
	inst, err := e.start(ctx, o)
	if err != nil {
		return nil, err
	}
	b.inst = inst
	b.slow = cfg.SlowMo
	b.tabs = []*tab{{n: 1, p: b.slowed(inst.first()), ctx: ctx}}
	return b, nil
}

// launchOptions are how the actor's browser is started.
func launchOptions(a Actor, exe string, sh *share, cfg *Config) startOptions {
	return startOptions{actor: a.Name, exe: exe, dev: a.device(), preload: jsSocketHook, share: sh, startLimit: cfg.scaled(browserStart), headed: cfg.Headed, debugPort: cfg.PauseOnFailure}
}

// prepare takes the process the actor's browser will start in (see
// engine.prepare).
func prepare(ctx context.Context, a Actor, engineName, exe string, sh *share, cfg *Config) error {
	e, ok := engines[engineName]
	if !ok {
		return fmt.Errorf("no browser engine %q (have %s)", engineName, strings.Join(EngineNames(), ", "))
	}
	return e.prepare(ctx, launchOptions(a, exe, sh, cfg))
}

// slowed is the page itself, or with -slowmo one that pauses before each
// input and load.
func (b *browser) slowed(p page) page {
	if b.slow <= 0 {
		return p
	}
	return slowPage{page: p, d: b.slow}
}

// slowPage pauses before what a person would see happen.
type slowPage struct {
	page
	d time.Duration
}

func (s slowPage) wait(ctx context.Context) error {
	select {
	case <-time.After(s.d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s slowPage) navigate(ctx context.Context, url string) (int, error) {
	if err := s.wait(ctx); err != nil {
		return 0, err
	}
	return s.page.navigate(ctx, url)
}

func (s slowPage) click(ctx context.Context, x, y float64) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	return s.page.click(ctx, x, y)
}

func (s slowPage) tap(ctx context.Context, x, y float64) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	return s.page.tap(ctx, x, y)
}

func (s slowPage) drag(ctx context.Context, touch bool, path []point) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	return s.page.drag(ctx, touch, path)
}

func (s slowPage) key(ctx context.Context, key string, shift bool) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	return s.page.key(ctx, key, shift)
}

func (b *browser) log(e consoleEntry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.console = append(b.console, e.String())
	if e.jsError {
		b.jsErrs = append(b.jsErrs, fmt.Sprintf("tab%d: %s", e.page, e.text))
	}
}

// tab returns the actor's tab n (from 1; 0 is the current one), opening it
// when it is the next one.
func (b *browser) tab(n int) (*tab, error) {
	if n == 0 {
		return b.tabs[b.current], nil
	}
	if n <= len(b.tabs) {
		b.current = n - 1
		return b.tabs[n-1], nil
	}
	if n != len(b.tabs)+1 {
		return nil, fmt.Errorf("%s has %d tabs; open tab %d first", b.actor.Name, len(b.tabs), len(b.tabs)+1)
	}
	p, err := b.inst.newPage(b.ctx, n)
	if err != nil {
		return nil, err
	}
	t := &tab{n: n, p: b.slowed(p), ctx: b.ctx}
	b.tabs = append(b.tabs, t)
	b.current = n - 1
	return t, nil
}

// setOffline cuts or restores the network of every tab of the actor, as
// DevTools' "Offline" does: requests fail and navigator.onLine follows.
func (b *browser) setOffline(off bool) error {
	for _, t := range b.tabs {
		if err := t.p.setOffline(t.ctx, off); err != nil {
			return fmt.Errorf("tab %d: %w", t.n, err)
		}
	}
	return nil
}

// setCut cuts the network of the actor's open tabs: offline as DevTools
// does (requests fail, navigator.onLine is false), and, since Chromium keeps
// an open WebSocket through that, every tab's sockets closed and new ones
// failing until the network is restored. Restoring goes online again, which
// the room page answers by reconnecting at once.
func (b *browser) setCut(cut bool) error {
	for _, t := range b.tabs {
		if err := t.p.exec(t.ctx, jsCall(jsSocketCut, cut)); err != nil {
			return fmt.Errorf("tab %d: %w", t.n, err)
		}
	}
	// The sockets are closed (jsSocketCut waited for it) before the
	// requests fail, so the server hears them go at once, as it would a
	// dropped connection, rather than only at its next ping.
	return b.setOffline(cut)
}

// errors returns the JavaScript errors seen so far.
func (b *browser) errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slicesClone(b.jsErrs)
}

func (b *browser) consoleText() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.console, "\n") + "\n"
}

// screenshot is a PNG of the tab's whole page, beyond the screen: on a
// phone the move list and the buttons are below the board. It takes as
// long as ctx lets it.
func (t *tab) screenshot(ctx context.Context) ([]byte, error) { return t.p.screenshot(ctx) }

func (b *browser) close() {
	for _, t := range b.tabs[min(1, len(b.tabs)):] {
		t.p.close()
	}
	if b.inst != nil {
		b.inst.close()
	}
}

// eval runs an expression in the tab and decodes its JSON value into T.
func eval[T any](t *tab, js string) (T, error) {
	var out T
	raw, err := t.p.eval(t.ctx, js)
	if err != nil {
		return out, err
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("decode %s: %w", raw, err)
	}
	return out, nil
}

func jsCall(fn string, args ...any) string {
	parts := make([]string, len(args))
	for i, a := range args {
		b, _ := json.Marshal(a)
		parts[i] = string(b)
	}
	return fn + "(" + strings.Join(parts, ",") + ")"
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }
