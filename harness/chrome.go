package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	cdpnet "github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/chromedp/chromedp/remote"
)

// chromeEngine drives Chromium (or Chrome) through the DevTools protocol,
// with chromedp. One Chromium process serves a whole scenario (and, kept by
// Browsers, the next ones): each actor is its own browser context (an
// incognito-like profile: its own cookies, storage and cache, removed with
// it) and each tab its own window.
type chromeEngine struct{}

// chromeProc is one Chromium process.
type chromeProc struct {
	port   int // the DevTools port, when one was asked for
	alloc  context.CancelFunc
	root   context.Context // the browser's first tab: actors' contexts are made from it
	cancel context.CancelFunc
	broken atomic.Bool // a browser context it could not remove
}

// usable says whether the Chromium can serve another scenario: chromedp
// ends root when the browser's connection is lost.
func (p *chromeProc) usable() bool { return p.root.Err() == nil && !p.broken.Load() }

func (p *chromeProc) close() {
	p.cancel()
	p.alloc()
}

// startChromium starts a headless Chromium with a fresh profile (the
// allocator makes one and removes it once Chromium and its helpers have
// exited), within limit or until ctx ends.
func startChromium(ctx context.Context, exe string, headed, debug bool, limit time.Duration) (*chromeProc, error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.DisableGPU,
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		// Two-core CI machines run several browsers at once: a tab that
		// seems hidden must not be throttled.
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		// Big enough for a desktop page; each tab's viewport is its
		// device's (Emulation.setDeviceMetricsOverride).
		chromedp.WindowSize(1366, 900),
	)
	if os.Geteuid() == 0 {
		// Chromium refuses to run as root with its sandbox (CI containers).
		opts = append(opts, chromedp.NoSandbox)
	}
	if exe != "" {
		opts = append(opts, chromedp.ExecPath(exe))
	}
	if headed {
		opts = append(opts, chromedp.Flag("headless", false))
	}
	p := &chromeProc{}
	if debug {
		// A port of its own (not the pipe chromedp uses by default), so
		// that a person can attach while the scenario pauses.
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		p.port = port
		opts = append(opts, chromedp.Flag("remote-debugging-port", strconv.Itoa(port)), remote.WebSocket)
	}
	// The browser outlives the scenario that starts it: its contexts are
	// not the scenario's.
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	p.alloc = acancel
	p.root, p.cancel = chromedp.NewContext(actx)
	// The first Do starts the browser, whose life is root's: the start is
	// bounded by waiting, not by a deadline on root.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(p.root) }()
	var err error
	select {
	case err = <-started:
	case <-time.After(limit):
		err = fmt.Errorf("no answer after %v", limit)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

type chromeInstance struct {
	o    startOptions
	proc *chromeProc
	root *chromePage // the first tab; its cancel removes the browser context
}

type chromePage struct {
	n      int
	ctx    context.Context // chromedp's: it names the tab
	cancel context.CancelFunc
}

// process is the scenario's Chromium, taken from the run's Browsers.
func (chromeEngine) process(ctx context.Context, o startOptions) (*chromeProc, error) {
	key := fmt.Sprintf("chromium\x00%s\x00%v\x00%v", o.exe, o.headed, o.debugPort)
	pp, err := o.share.take("chromium", key, "chromium", func() (pooled, error) {
		p, err := startChromium(ctx, o.exe, o.headed, o.debugPort, o.startLimit)
		if err != nil {
			return nil, fmt.Errorf("start chromium for %s: %w", o.actor, err)
		}
		return p, nil
	})
	if err != nil {
		return nil, err
	}
	return pp.(*chromeProc), nil
}

func (e chromeEngine) prepare(ctx context.Context, o startOptions) error {
	_, err := e.process(ctx, o)
	return err
}

func (e chromeEngine) start(ctx context.Context, o startOptions) (instance, error) {
	proc, err := e.process(ctx, o)
	if err != nil {
		return nil, err
	}
	b := &chromeInstance{o: o, proc: proc}
	// The actor's own browser context, and its first tab in a window of
	// its own.
	actx, cancel := chromedp.NewContext(b.proc.root, chromedp.WithNewBrowserContext())
	p := &chromePage{n: 1, ctx: actx, cancel: cancel}
	if err := p.open(ctx); err != nil {
		return nil, fmt.Errorf("chromium for %s: %w", o.actor, err)
	}
	b.root = p
	if err := b.setup(ctx, b.root); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *chromeInstance) first() page { return b.root }

func (b *chromeInstance) attach() string {
	if b.proc.port == 0 {
		return "Chromium (no DevTools port: run with -pause-on-failure)"
	}
	return fmt.Sprintf("Chromium: DevTools on http://127.0.0.1:%d (open it, or add it in chrome://inspect under Configure; the actor's pages are those of browser context %s)", b.proc.port, chromedp.FromContext(b.root.ctx).BrowserContextID)
}

func (b *chromeInstance) newPage(ctx context.Context, n int) (page, error) {
	// A child of the actor's first tab: a tab of its browser context, in
	// a window of its own.
	tctx, cancel := chromedp.NewContext(b.root.ctx)
	p := &chromePage{n: n, ctx: tctx, cancel: cancel}
	if err := p.open(ctx); err != nil {
		return nil, fmt.Errorf("open tab %d: %w", n, err)
	}
	if err := b.setup(ctx, p); err != nil {
		cancel()
		return nil, err
	}
	return p, nil
}

// open opens the tab: its first Run gets the tab's own context, which the
// tab lives as long as (chromedp's rule), and is bounded by waiting for it
// as long as ctx (the scenario's) lets; the tab is closed when it fails.
func (p *chromePage) open(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(p.ctx) }()
	select {
	case err := <-done:
		if err != nil {
			p.cancel()
		}
		return err
	case <-ctx.Done():
		p.cancel()
		<-done
		return ctx.Err()
	}
}

// run runs actions in the tab, ended with ctx (the scenario's) as well as
// with the tab.
func (p *chromePage) run(ctx context.Context, actions ...chromedp.Action[chromedp.Void]) error {
	cctx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if err := chromedp.Do(cctx, actions...); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	return nil
}

// setup emulates the device in a tab and listens to its console.
func (b *chromeInstance) setup(sctx context.Context, p *chromePage) error {
	ctx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	stop := context.AfterFunc(sctx, cancel)
	defer stop()
	d := b.o.dev
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: d.Width, Height: d.Height, DeviceScaleFactor: d.Scale, Mobile: d.Mobile,
	}); err != nil {
		return fmt.Errorf("emulate the device: %w", err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{
		Enabled: d.Touch, MaxTouchPoints: 5,
	}); err != nil {
		return fmt.Errorf("emulate touch: %w", err)
	}
	// The actors' windows are windows of one browser: each page is told
	// it has the focus, as each person's own device's page has (a page
	// that is not focused fires no focus events, and the board's keyboard
	// cursor follows the focus).
	if _, err := chromedp.Call(ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		return fmt.Errorf("emulate the focus: %w", err)
	}
	if d.UserAgent != "" {
		if _, err := chromedp.Call(ctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: d.UserAgent}); err != nil {
			return fmt.Errorf("user agent: %w", err)
		}
	}
	if _, err := chromedp.Call(ctx, cdpnet.Enable, cdpnet.EnableParams{}); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	if b.o.preload != "" {
		if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: b.o.preload}); err != nil {
			return fmt.Errorf("preload script: %w", err)
		}
	}
	// The console for as long as the tab lives.
	msgs := chromedp.Console(p.ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			e := consoleEntry{page: p.n, time: m.Time, kind: string(m.Type), text: m.Text, url: m.URL}
			if m.URL != "" {
				e.line = int(m.Line) + 1
			}
			// An entry of the browser's own log (a failed request while
			// offline) has no Args; only the page's own errors count.
			e.jsError = m.IsException() || (m.Type == chromedp.ConsoleError && len(m.Args) > 0)
			if b.o.console != nil {
				b.o.console(e)
			}
		}
	}()
	return nil
}

// close closes the actor's tabs and removes its browser context, with its
// cookies, storage and cache; the Chromium goes back to the run's Browsers
// with the scenario's end.
func (b *chromeInstance) close() {
	if b.root == nil {
		return
	}
	if err := chromedp.Cancel(b.root.ctx); err != nil {
		// Its storage may live on: this Chromium serves no other
		// scenario.
		b.proc.broken.Store(true)
	}
	b.root = nil
}

// bound is the tab's context, ended with ctx (the scenario's) too: the
// browser outlives the scenario.
func (p *chromePage) bound(ctx context.Context) (context.Context, func()) {
	cctx, cancel := context.WithCancel(p.ctx)
	stop := context.AfterFunc(ctx, cancel)
	return cctx, func() { stop(); cancel() }
}

func (p *chromePage) navigate(ctx context.Context, url string) (int, error) {
	cctx, done := p.bound(ctx)
	defer done()
	resp, err := chromedp.RunResponse(cctx, chromedp.Navigate(url))
	if err != nil || resp == nil {
		return 0, err
	}
	return int(resp.Status), nil
}

func (p *chromePage) reload(ctx context.Context) error { return p.run(ctx, chromedp.Reload()) }

func (p *chromePage) eval(ctx context.Context, js string) (json.RawMessage, error) {
	cctx, done := p.bound(ctx)
	defer done()
	return chromedp.Run(cctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAsValue))
}

func (p *chromePage) exec(ctx context.Context, js string) error {
	cctx, done := p.bound(ctx)
	defer done()
	_, err := chromedp.Run(cctx, chromedp.Evaluate[chromedp.Void](js, chromedp.EvalAwaitPromise))
	return err
}

func (p *chromePage) click(ctx context.Context, x, y float64) error {
	return p.run(ctx, chromedp.MouseClickXY(x, y))
}

func (p *chromePage) tap(ctx context.Context, x, y float64) error {
	return p.run(ctx, chromedp.TapXY(x, y))
}

func (p *chromePage) drag(ctx context.Context, touch bool, path []point) error {
	return p.run(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		last := len(path) - 1
		for i, pt := range path {
			if touch {
				typ := input.DispatchTouchEventTypeTouchMove
				pts := []*input.TouchPoint{{X: pt.X, Y: pt.Y}}
				switch i {
				case 0:
					typ = input.DispatchTouchEventTypeTouchStart
				case last:
					typ, pts = input.DispatchTouchEventTypeTouchEnd, []*input.TouchPoint{}
				}
				if err := t.Call(ctx, input.CommandDispatchTouchEvent, input.DispatchTouchEventParams{Type: typ, TouchPoints: pts}, nil); err != nil {
					return err
				}
				continue
			}
			e := input.DispatchMouseEventParams{Type: chromedp.MouseMoved, X: pt.X, Y: pt.Y, Button: input.MouseButtonLeft, Buttons: 1}
			switch i {
			case 0:
				e.Type, e.ClickCount = chromedp.MousePressed, 1
			case last:
				e.Type, e.ClickCount = chromedp.MouseReleased, 1
			}
			if err := t.Call(ctx, input.CommandDispatchMouseEvent, e, nil); err != nil {
				return err
			}
		}
		return nil
	}))
}

var chromeKeys = map[string]string{
	"Enter": kb.Enter, "Tab": kb.Tab,
	"ArrowUp": kb.ArrowUp, "ArrowDown": kb.ArrowDown, "ArrowLeft": kb.ArrowLeft, "ArrowRight": kb.ArrowRight,
}

func (p *chromePage) key(ctx context.Context, key string, shift bool) error {
	k, ok := chromeKeys[key]
	if !ok {
		return fmt.Errorf("no key %q", key)
	}
	var opts []chromedp.KeyOption
	if shift {
		opts = append(opts, chromedp.KeyModifiers(chromedp.ModifierShift))
	}
	return p.run(ctx, chromedp.KeyEvent(k, opts...))
}

func (p *chromePage) setOffline(sctx context.Context, off bool) error {
	ctx, done := p.bound(sctx)
	defer done()
	conds := []*cdpnet.Conditions{{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}}
	if !off {
		conds = []*cdpnet.Conditions{}
	}
	if _, err := chromedp.Call(ctx, cdpnet.EmulateNetworkConditionsByRule, cdpnet.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: conds,
	}); err != nil {
		return fmt.Errorf("network conditions: %w", err)
	}
	if _, err := chromedp.Call(ctx, cdpnet.OverrideNetworkState, cdpnet.OverrideNetworkStateParams{
		Offline: off, DownloadThroughput: -1, UploadThroughput: -1,
	}); err != nil {
		return fmt.Errorf("network state: %w", err)
	}
	return nil
}

func (p *chromePage) screenshot(ctx context.Context) ([]byte, error) {
	// Bounded by the caller's ctx (a step's time), not a fixed limit.
	sctx, done := p.bound(ctx)
	defer done()
	return chromedp.Run(sctx, chromedp.FullScreenshot(100))
}

func (p *chromePage) close() { p.cancel() }
