package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// browser is one actor's Chromium: its own process and profile, and the tabs
// the actor opened in it.
type browser struct {
	actor   Actor
	dev     Device
	alloc   context.CancelFunc
	root    context.Context // the first tab; its cancel ends the browser
	cancel  context.CancelFunc
	tabs    []*tab
	current int

	mu      sync.Mutex
	console []string // every tab's console, in order, for the report
	jsErrs  []string // uncaught exceptions and console.error calls
}

// tab is one page of a browser.
type tab struct {
	n      int
	ctx    context.Context
	cancel context.CancelFunc
}

// launch starts a Chromium for the actor; exe is the binary (Run found it).
func launch(ctx context.Context, a Actor, exe string) (*browser, error) {
	dev := a.device()
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
	if exe != "" {
		opts = append(opts, chromedp.ExecPath(exe))
	}
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	b := &browser{actor: a, dev: dev, alloc: acancel}
	b.root, b.cancel = chromedp.NewContext(actx)
	if err := chromedp.Do(b.root); err != nil {
		b.close()
		return nil, fmt.Errorf("start chromium for %s: %w", a.Name, err)
	}
	if err := b.setup(b.root, 1); err != nil {
		b.close()
		return nil, err
	}
	b.tabs = []*tab{{n: 1, ctx: b.root, cancel: func() {}}}
	return b, nil
}

// setup emulates the device in a tab and listens to its console.
func (b *browser) setup(ctx context.Context, n int) error {
	d := b.dev
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: d.Width, Height: d.Height, DeviceScaleFactor: d.Scale, Mobile: d.Mobile,
	}); err != nil {
		return fmt.Errorf("emulate %s: %w", b.actor.Device, err)
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
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: jsSocketHook}); err != nil {
		return fmt.Errorf("socket hook: %w", err)
	}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			line := fmt.Sprintf("%s tab%d %s %s", m.Time.Format("15:04:05.000"), n, m.Type, m.Text)
			if m.URL != "" {
				line += fmt.Sprintf(" (%s:%d)", m.URL, m.Line+1)
			}
			b.mu.Lock()
			b.console = append(b.console, line)
			// An entry of the browser's own log (a failed request while
			// offline) has no Args; only the page's own errors count.
			if m.IsException() || (m.Type == chromedp.ConsoleError && len(m.Args) > 0) {
				b.jsErrs = append(b.jsErrs, fmt.Sprintf("tab%d: %s", n, m.Text))
			}
			b.mu.Unlock()
		}
	}()
	return nil
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
	ctx, cancel := chromedp.NewContext(b.root)
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		return nil, fmt.Errorf("open tab %d: %w", n, err)
	}
	if err := b.setup(ctx, n); err != nil {
		cancel()
		return nil, err
	}
	t := &tab{n: n, ctx: ctx, cancel: cancel}
	b.tabs = append(b.tabs, t)
	b.current = n - 1
	return t, nil
}

// setOffline cuts or restores the network of every tab of the actor, as
// DevTools' "Offline" does: requests fail and navigator.onLine follows.
func (b *browser) setOffline(off bool) error {
	for _, t := range b.tabs {
		conds := []*network.Conditions{{Offline: off, DownloadThroughput: -1, UploadThroughput: -1}}
		if !off {
			conds = []*network.Conditions{}
		}
		if _, err := chromedp.Call(t.ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			MatchedNetworkConditions: conds,
		}); err != nil {
			return fmt.Errorf("network conditions: %w", err)
		}
		if _, err := chromedp.Call(t.ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{
			Offline: off, DownloadThroughput: -1, UploadThroughput: -1,
		}); err != nil {
			return fmt.Errorf("network state: %w", err)
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
		if _, err := chromedp.Run(t.ctx, chromedp.Evaluate[chromedp.Void](jsCall(jsSocketCut, cut), chromedp.EvalAwaitPromise)); err != nil {
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

// screenshots captures every tab, for a failure report.
func (b *browser) screenshots(ctx context.Context) map[int][]byte {
	out := map[int][]byte{}
	for _, t := range b.tabs {
		if buf, err := t.screenshot(ctx); err == nil {
			out[t.n] = buf
		}
	}
	return out
}

// screenshot is a PNG of the tab's whole page, beyond the screen: on a
// phone the move list and the buttons are below the board.
func (t *tab) screenshot(ctx context.Context) ([]byte, error) {
	sctx, cancel := context.WithTimeout(t.ctx, 10*time.Second)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	return chromedp.Run(sctx, chromedp.FullScreenshot(100))
}

func (b *browser) close() {
	for _, t := range b.tabs {
		t.cancel()
	}
	if b.cancel != nil {
		b.cancel()
	}
	if b.alloc != nil {
		b.alloc()
	}
}

// eval runs an expression in the tab and decodes its JSON value into T.
func eval[T any](ctx context.Context, js string) (T, error) {
	var out T
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](js, chromedp.EvalAsValue))
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
