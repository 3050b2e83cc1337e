package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/banmen/banmen/harness/chromium"
	"github.com/banmen/banmen/harness/internal/webdriver"
)

// WebKitEnv names the WebKitWebDriver binary; Config.WebKit (the -webkit
// flag) wins over it.
const WebKitEnv = "BANMEN_WEBKIT"

// FindWebKit returns the WebKitWebDriver to run (Debian's
// webkit2gtk-driver), as FindFirefox does for Firefox: flag if given, else
// $BANMEN_WEBKIT, else WebKitWebDriver on PATH. None found wraps
// chromium.ErrNotFound (a test may skip) unless BANMEN_REQUIRE_BROWSER=1.
func FindWebKit(flag string, getenv func(string) string) (string, error) {
	for _, named := range []struct{ how, path string }{{"-webkit", flag}, {WebKitEnv, getenv(WebKitEnv)}} {
		if named.path == "" {
			continue
		}
		if fi, err := os.Stat(named.path); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s %s: not an executable file", named.how, named.path)
		}
		return named.path, nil
	}
	if p, err := exec.LookPath("WebKitWebDriver"); err == nil {
		return p, nil
	}
	const hint = "install Debian's webkit2gtk-driver and xvfb (scripts/deps.sh does) or set " + WebKitEnv
	if getenv(chromium.RequireEnv) == "1" {
		return "", fmt.Errorf("%s=1 and no WebKitWebDriver on PATH: %s", chromium.RequireEnv, hint)
	}
	return "", fmt.Errorf("%w: no WebKitWebDriver on PATH: %s", chromium.ErrNotFound, hint)
}

// webkitEngine drives WebKitGTK's MiniBrowser through WebKitWebDriver and
// the WebDriver classic protocol (harness/internal/webdriver): WebKitGTK
// has no BiDi yet. Each actor is its own WebDriver session of a
// WebKitWebDriver (one session a driver; the drivers are kept between
// scenarios by Browsers) and so its own MiniBrowser process (a session
// starts one with a fresh, ephemeral profile), going through its own
// webkitProxy (the preload, the console, offline). WebKitGTK (GTK 3) draws
// into an X display: every browser of the run shares one Xvfb the harness
// starts, unless Config.Headed shows them on $DISPLAY.
type webkitEngine struct{}

type webkitInstance struct {
	o     startOptions
	drv   *webkitDriver // the scenario's for this actor, given back at its end
	proxy *webkitProxy
	sess  *webdriver.Session

	// mu serializes the session's commands: a command acts on the current
	// window, so a tab's command switches to its window first.
	mu      sync.Mutex
	current string
	root    *webkitPage
}

type webkitPage struct {
	in     *webkitInstance
	n      int
	handle string
}

// startXvfb starts an X server on a free display and returns its name
// (":N"), how to end it, and a channel closed when it has ended.
func startXvfb(ctx context.Context, limit time.Duration) (string, func(), <-chan struct{}, error) {
	x, err := exec.LookPath("Xvfb")
	if err != nil {
		return "", nil, nil, errors.New("WebKitGTK draws on an X display: install Debian's xvfb (scripts/deps.sh does)")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return "", nil, nil, err
	}
	// The screen holds a tablet at a pixel ratio of 2 and a phone at 3;
	// -displayfd picks a free display and writes its number.
	cmd := exec.Command(x, "-displayfd", "3", "-screen", "0", "3840x2880x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return "", nil, nil, err
	}
	w.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
		r.Close()
	}()
	stop := func() { cmd.Process.Kill(); <-done }
	var n string
	select {
	case n = <-got:
	case <-time.After(limit):
		stop()
		return "", nil, nil, fmt.Errorf("no display after %v", limit)
	case <-ctx.Done():
		stop()
		return "", nil, nil, ctx.Err()
	}
	if _, err := strconv.Atoi(n); err != nil {
		stop()
		return "", nil, nil, fmt.Errorf("it named no display (%q)", n)
	}
	return ":" + n, stop, done, nil
}

// freePort is a loopback port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// webkitDriver is one WebKitWebDriver process: it serves one session at a
// time, and each session starts a new MiniBrowser with a fresh profile, so
// the driver is kept for the next scenario (Browsers) and the browser is
// not.
type webkitDriver struct {
	cmd    *exec.Cmd
	exit   chan struct{}
	c      *webdriver.Client
	broken atomic.Bool // a session it could not end
}

func (d *webkitDriver) usable() bool {
	select {
	case <-d.exit:
		return false
	default:
		return !d.broken.Load()
	}
}

func (d *webkitDriver) close() {
	d.cmd.Process.Kill()
	<-d.exit
}

// startWebkitDriver starts WebKitWebDriver on a free port, drawing on the
// display disp at the pixel ratio scale, and waits until it answers.
func startWebkitDriver(ctx context.Context, exe, disp string, scale int, limit time.Duration) (*webkitDriver, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	d := &webkitDriver{cmd: exec.Command(exe, "--port="+strconv.Itoa(port), "--host=local"), exit: make(chan struct{})}
	// The device's pixel ratio: GTK scales a whole process (the
	// MiniBrowser the driver starts inherits it) by a whole number.
	d.cmd.Env = append(os.Environ(), "DISPLAY="+disp, "GDK_SCALE="+strconv.Itoa(scale))
	if err := d.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { d.cmd.Wait(); close(d.exit) }()
	d.c = &webdriver.Client{Base: fmt.Sprintf("http://127.0.0.1:%d", port), HTTP: &http.Client{}}
	deadline := time.Now().Add(limit)
	for {
		var st struct {
			Ready bool `json:"ready"`
		}
		if err := d.c.Do(ctx, http.MethodGet, "/status", nil, &st); err == nil && st.Ready {
			return d, nil
		}
		if time.Now().After(deadline) {
			d.close()
			return nil, fmt.Errorf("no answer after %v", limit)
		}
		select {
		case <-d.exit:
			return nil, errors.New("it exited")
		case <-ctx.Done():
			d.close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// process is the actor's WebKitWebDriver, taken from the run's Browsers
// (and the run's X display, started at the first).
func (webkitEngine) process(ctx context.Context, o startOptions) (*webkitDriver, error) {
	disp, err := o.share.pool.display(ctx, o.headed, o.startLimit)
	if err != nil {
		return nil, err
	}
	scale := max(1, int(math.Round(o.dev.Scale)))
	key := fmt.Sprintf("webkit\x00%s\x00%s\x00%d", o.exe, disp, scale)
	p, err := o.share.take("webkit:"+o.actor, key, "webkit", func() (pooled, error) {
		d, err := startWebkitDriver(ctx, o.exe, disp, scale, o.startLimit)
		if err != nil {
			return nil, fmt.Errorf("start WebKitWebDriver for %s: %w", o.actor, err)
		}
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	return p.(*webkitDriver), nil
}

func (e webkitEngine) prepare(ctx context.Context, o startOptions) error {
	_, err := e.process(ctx, o)
	return err
}

func (e webkitEngine) start(ctx context.Context, o startOptions) (instance, error) {
	drv, err := e.process(ctx, o)
	if err != nil {
		return nil, err
	}
	in := &webkitInstance{o: o, drv: drv}
	if in.proxy, err = startWebkitProxy(o.preload, o.console); err != nil {
		return nil, err
	}
	args := []string{"--automation"}
	if o.dev.UserAgent != "" {
		args = append(args, "--user-agent="+o.dev.UserAgent)
	}
	sctx, cancel := context.WithTimeout(ctx, o.startLimit)
	defer cancel()
	in.sess, _, err = in.drv.c.NewSession(sctx, map[string]any{
		"proxy":                    map[string]any{"proxyType": "manual", "httpProxy": in.proxy.addr(), "sslProxy": in.proxy.addr()},
		"timeouts":                 map[string]any{"script": 24 * 3600 * 1000, "pageLoad": 10 * 60 * 1000},
		"webkitgtk:browserOptions": map[string]any{"args": args},
	})
	if err != nil {
		// The driver may be left with half a session.
		in.drv.broken.Store(true)
		in.close()
		return nil, fmt.Errorf("start WebKit for %s: %w", o.actor, err)
	}
	var h string
	if err := in.sess.Do(ctx, http.MethodGet, "/window", nil, &h); err != nil {
		in.close()
		return nil, err
	}
	in.current = h
	in.root = &webkitPage{in: in, n: 1, handle: h}
	if err := in.root.fit(ctx); err != nil {
		in.close()
		return nil, err
	}
	return in, nil
}

func (in *webkitInstance) first() page { return in.root }

func (in *webkitInstance) attach() string {
	return fmt.Sprintf("WebKit: WebDriver session %s%s (e.g. curl %s/session/%s/url); with -headed its window is on the display", in.sess.C.Base, "/session/"+in.sess.ID, in.sess.C.Base, in.sess.ID)
}

func (in *webkitInstance) newPage(ctx context.Context, n int) (page, error) {
	var r struct {
		Handle string `json:"handle"`
	}
	in.mu.Lock()
	err := in.sess.Do(ctx, http.MethodPost, "/window/new", map[string]any{"type": "window"}, &r)
	in.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("open tab %d: %w", n, err)
	}
	p := &webkitPage{in: in, n: n, handle: r.Handle}
	if err := p.fit(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// close ends the actor's session, and with it its MiniBrowser and
// profile; the driver goes back to the run's Browsers with the scenario's
// end.
func (in *webkitInstance) close() {
	if in.sess != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := in.sess.Delete(ctx); err != nil {
			// A driver whose session may live on is not given to
			// another scenario.
			in.drv.broken.Store(true)
		}
		cancel()
		in.sess = nil
	}
	if in.proxy != nil {
		in.proxy.close()
	}
}

// do sends a command in the page's window.
func (p *webkitPage) do(ctx context.Context, method, path string, body, out any) error {
	in := p.in
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.current != p.handle {
		if err := in.sess.Do(ctx, http.MethodPost, "/window", map[string]any{"handle": p.handle}, nil); err != nil {
			return fmt.Errorf("switch to tab %d: %w", p.n, err)
		}
		in.current = p.handle
	}
	return in.sess.Do(ctx, method, path, body, out)
}

// fit sizes the window so that its viewport is the device's: the window's
// toolbar is measured and added. MiniBrowser's window is never narrower
// than its toolbar (about 447 CSS px), so a phone's viewport is that wide.
func (p *webkitPage) fit(ctx context.Context) error {
	d := p.in.o.dev
	var m struct {
		IW, IH, OW, OH float64
	}
	for range 3 {
		if err := p.do(ctx, http.MethodPost, "/execute/sync", map[string]any{
			"script": "return {IW: innerWidth, IH: innerHeight, OW: outerWidth, OH: outerHeight}", "args": []any{},
		}, &m); err != nil {
			return fmt.Errorf("emulate the device: %w", err)
		}
		if m.IW == float64(d.Width) && m.IH == float64(d.Height) {
			return nil
		}
		rect := map[string]any{"width": float64(d.Width) + m.OW - m.IW, "height": float64(d.Height) + m.OH - m.IH}
		if err := p.do(ctx, http.MethodPost, "/window/rect", rect, nil); err != nil {
			return fmt.Errorf("emulate the device: %w", err)
		}
	}
	return nil
}

func (p *webkitPage) navigate(ctx context.Context, url string) (int, error) {
	p.in.proxy.resetStatus()
	if err := p.do(ctx, http.MethodPost, "/url", map[string]any{"url": url}, nil); err != nil {
		return 0, err
	}
	return p.in.proxy.lastStatus(), nil
}

func (p *webkitPage) reload(ctx context.Context) error {
	return p.do(ctx, http.MethodPost, "/refresh", nil, nil)
}

// script runs a function body in the page (its value awaited when a
// promise) and decodes the value into out.
func (p *webkitPage) script(ctx context.Context, body string, args []any, out any) error {
	if args == nil {
		args = []any{}
	}
	err := p.do(ctx, http.MethodPost, "/execute/sync", map[string]any{"script": body, "args": args}, out)
	var we *webdriver.Error
	if errors.As(err, &we) && we.Code == "javascript error" {
		return fmt.Errorf("javascript: %s", strings.TrimSpace(we.Message))
	}
	return err
}

func (p *webkitPage) eval(ctx context.Context, js string) (json.RawMessage, error) {
	// The value comes back as JSON text, as chromedp's does. The page's
	// Content-Security-Policy forbids eval: the expression is the body
	// of the function WebDriver runs.
	var s string
	if err := p.script(ctx, "const v = ("+js+"\n); return v === undefined ? 'null' : JSON.stringify(v);", nil, &s); err != nil {
		return nil, err
	}
	return json.RawMessage(s), nil
}

func (p *webkitPage) exec(ctx context.Context, js string) error {
	err := p.script(ctx, "const v = ("+js+"\n); return v && typeof v.then === 'function' ? v.then(() => null) : null;", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "SyntaxError") {
		return err
	}
	// Statements, not an expression: a script of the page's own origin,
	// served by the proxy (its value is not awaited; an error it throws
	// is an uncaught exception of the page).
	src := p.in.proxy.addScript(js)
	return p.script(ctx, `return new Promise((done, fail) => {
  const s = document.createElement('script');
  s.src = arguments[0];
  s.onload = () => { s.remove(); done(null); };
  s.onerror = () => fail(new Error('the script did not load'));
  document.head.append(s);
});`, []any{src}, nil)
}

func (p *webkitPage) actions(ctx context.Context, source map[string]any) error {
	return p.do(ctx, http.MethodPost, "/actions", map[string]any{"actions": []any{source}}, nil)
}

// WebKitGTK makes a touch pointer's actions mouse events: taps and drags
// by finger are pointerType "mouse" there (docs/harness.md).
func (p *webkitPage) click(ctx context.Context, x, y float64) error {
	return p.actions(ctx, pointer("mouse", move(point{X: x, Y: y}), down, up))
}

func (p *webkitPage) tap(ctx context.Context, x, y float64) error {
	return p.actions(ctx, pointer("touch", move(point{X: x, Y: y}), down, up))
}

func (p *webkitPage) drag(ctx context.Context, touch bool, path []point) error {
	kind := "mouse"
	if touch {
		kind = "touch"
	}
	acts := []map[string]any{move(path[0]), down}
	for _, pt := range path[1:] {
		acts = append(acts, move(pt))
	}
	return p.actions(ctx, pointer(kind, append(acts, up)...))
}

func (p *webkitPage) key(ctx context.Context, key string, shift bool) error {
	k, ok := bidiKeys[key] // WebDriver's key codes, the same in both protocols
	if !ok {
		return fmt.Errorf("no key %q", key)
	}
	press := func(t, v string) map[string]any { return map[string]any{"type": t, "value": v} }
	acts := []map[string]any{press("keyDown", k), press("keyUp", k)}
	if shift {
		s := bidiKeys["Shift"]
		acts = []map[string]any{press("keyDown", s), acts[0], acts[1], press("keyUp", s)}
	}
	return p.actions(ctx, map[string]any{"type": "key", "id": "keyboard", "actions": acts})
}

// setOffline cuts the actor's network at its proxy: requests fail and open
// sockets close. navigator.onLine stays true (no WebDriver command sets
// it).
func (p *webkitPage) setOffline(_ context.Context, off bool) error {
	p.in.proxy.setOffline(off)
	return nil
}

// screenshot is the whole page: WebDriver classic pictures the viewport
// only, so the page is scrolled a screen at a time and the pictures are
// put together (an element fixed on the screen shows in each), and its
// scroll put back.
func (p *webkitPage) screenshot(ctx context.Context) ([]byte, error) {
	var m struct {
		X, Y, Page, Screen float64
	}
	if err := p.script(ctx, "return {X: scrollX, Y: scrollY, Page: document.documentElement.scrollHeight, Screen: innerHeight}", nil, &m); err != nil {
		return nil, err
	}
	defer p.script(context.WithoutCancel(ctx), "scrollTo(arguments[0], arguments[1]); return null", []any{m.X, m.Y}, nil)
	var whole *image.RGBA
	for top := 0.0; ; top += m.Screen {
		var at float64
		if err := p.script(ctx, "scrollTo(arguments[0], arguments[1]); return scrollY", []any{m.X, top}, &at); err != nil {
			return nil, err
		}
		var b64 string
		if err := p.do(ctx, http.MethodGet, "/screenshot", nil, &b64); err != nil {
			return nil, err
		}
		raw, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, err
		}
		shot, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		b := shot.Bounds()
		scale := float64(b.Dy()) / m.Screen // device pixels per CSS pixel
		if whole == nil {
			if m.Page <= m.Screen {
				return raw, nil
			}
			whole = image.NewRGBA(image.Rect(0, 0, b.Dx(), int(math.Ceil(m.Page*scale))))
		}
		y := int(math.Round(at * scale))
		draw.Draw(whole, image.Rect(0, y, b.Dx(), y+b.Dy()), shot, b.Min, draw.Src)
		if at+m.Screen >= m.Page || at < top {
			break
		}
	}
	var out bytes.Buffer
	if err := png.Encode(&out, whole); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func (p *webkitPage) close() {
	if p == p.in.root {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.do(ctx, http.MethodDelete, "/window", nil, nil)
	p.in.mu.Lock()
	p.in.current = "" // the driver's current window is gone
	p.in.mu.Unlock()
}
