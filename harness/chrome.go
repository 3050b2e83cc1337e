package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
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
// with chromedp.
type chromeEngine struct{}

type chromeInstance struct {
	o      startOptions
	port   int // the DevTools port, when one was asked for
	alloc  context.CancelFunc
	root   *chromePage // the first tab; its cancel ends the browser
	cancel context.CancelFunc
}

type chromePage struct {
	n      int
	ctx    context.Context // chromedp's: it names the tab
	cancel context.CancelFunc
}

func (chromeEngine) start(ctx context.Context, o startOptions) (instance, error) {
	dev := o.dev
	// No UserDataDir: the allocator makes a fresh profile per actor and
	// removes it once Chromium and its helpers have exited.
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
		chromedp.WindowSize(int(dev.Width), int(dev.Height)),
	)
	if os.Geteuid() == 0 {
		// Chromium refuses to run as root with its sandbox (CI containers).
		opts = append(opts, chromedp.NoSandbox)
	}
	if o.exe != "" {
		opts = append(opts, chromedp.ExecPath(o.exe))
	}
	if o.headed {
		opts = append(opts, chromedp.Flag("headless", false))
	}
	port := 0
	if o.debugPort {
		// A port of its own (not the pipe chromedp uses by default), so
		// that a person can attach while the scenario pauses.
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		port = p
		opts = append(opts, chromedp.Flag("remote-debugging-port", strconv.Itoa(p)), remote.WebSocket)
	}
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	b := &chromeInstance{o: o, alloc: acancel, port: port}
	rctx, cancel := chromedp.NewContext(actx)
	b.cancel = cancel
	// The first Do starts the browser, whose life is rctx's: the start is
	// bounded by waiting, not by a deadline on rctx.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(rctx) }()
	var err error
	select {
	case err = <-started:
	case <-time.After(o.startLimit):
		err = fmt.Errorf("no answer after %v", o.startLimit)
	}
	if err != nil {
		b.close()
		return nil, fmt.Errorf("start chromium for %s: %w", o.actor, err)
	}
	b.root = &chromePage{n: 1, ctx: rctx, cancel: func() {}}
	if err := b.setup(b.root); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *chromeInstance) first() page { return b.root }

func (b *chromeInstance) attach() string {
	if b.port == 0 {
		return "Chromium (no DevTools port: run with -pause-on-failure)"
	}
	return fmt.Sprintf("Chromium: DevTools on http://127.0.0.1:%d (open it, or add it in chrome://inspect under Configure)", b.port)
}

func (b *chromeInstance) newPage(_ context.Context, n int) (page, error) {
	ctx, cancel := chromedp.NewContext(b.root.ctx)
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		return nil, fmt.Errorf("open tab %d: %w", n, err)
	}
	p := &chromePage{n: n, ctx: ctx, cancel: cancel}
	if err := b.setup(p); err != nil {
		cancel()
		return nil, err
	}
	return p, nil
}

// setup emulates the device in a tab and listens to its console.
func (b *chromeInstance) setup(p *chromePage) error {
	ctx, d := p.ctx, b.o.dev
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
	msgs := chromedp.Console(ctx)
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

func (b *chromeInstance) close() {
	if b.root != nil {
		b.root.cancel()
	}
	if b.cancel != nil {
		b.cancel()
	}
	if b.alloc != nil {
		b.alloc()
	}
}

func (p *chromePage) navigate(_ context.Context, url string) (int, error) {
	resp, err := chromedp.RunResponse(p.ctx, chromedp.Navigate(url))
	if err != nil || resp == nil {
		return 0, err
	}
	return int(resp.Status), nil
}

func (p *chromePage) reload(context.Context) error { return chromedp.Do(p.ctx, chromedp.Reload()) }

func (p *chromePage) eval(_ context.Context, js string) (json.RawMessage, error) {
	return chromedp.Run(p.ctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAsValue))
}

func (p *chromePage) exec(ctx context.Context, js string) error {
	cctx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	_, err := chromedp.Run(cctx, chromedp.Evaluate[chromedp.Void](js, chromedp.EvalAwaitPromise))
	return err
}

func (p *chromePage) click(_ context.Context, x, y float64) error {
	return chromedp.Do(p.ctx, chromedp.MouseClickXY(x, y))
}

func (p *chromePage) tap(_ context.Context, x, y float64) error {
	return chromedp.Do(p.ctx, chromedp.TapXY(x, y))
}

func (p *chromePage) drag(_ context.Context, touch bool, path []point) error {
	return chromedp.Do(p.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
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

func (p *chromePage) key(_ context.Context, key string, shift bool) error {
	k, ok := chromeKeys[key]
	if !ok {
		return fmt.Errorf("no key %q", key)
	}
	var opts []chromedp.KeyOption
	if shift {
		opts = append(opts, chromedp.KeyModifiers(chromedp.ModifierShift))
	}
	return chromedp.Do(p.ctx, chromedp.KeyEvent(k, opts...))
}

func (p *chromePage) setOffline(_ context.Context, off bool) error {
	conds := []*cdpnet.Conditions{{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}}
	if !off {
		conds = []*cdpnet.Conditions{}
	}
	if _, err := chromedp.Call(p.ctx, cdpnet.EmulateNetworkConditionsByRule, cdpnet.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: conds,
	}); err != nil {
		return fmt.Errorf("network conditions: %w", err)
	}
	if _, err := chromedp.Call(p.ctx, cdpnet.OverrideNetworkState, cdpnet.OverrideNetworkStateParams{
		Offline: off, DownloadThroughput: -1, UploadThroughput: -1,
	}); err != nil {
		return fmt.Errorf("network state: %w", err)
	}
	return nil
}

func (p *chromePage) screenshot(ctx context.Context) ([]byte, error) {
	// Bounded by the caller's ctx (a step's time), not a fixed limit.
	sctx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	return chromedp.Run(sctx, chromedp.FullScreenshot(100))
}

func (p *chromePage) close() { p.cancel() }
