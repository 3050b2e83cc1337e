package harness

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/banmen/banmen/harness/chromium"
	"github.com/banmen/banmen/harness/internal/bidi"
)

// FirefoxEnv names the Firefox binary; Config.Firefox (the -firefox flag)
// wins over it.
const FirefoxEnv = "BANMEN_FIREFOX"

// FirefoxNames are the executables looked up on PATH, in order; Debian's
// firefox-esr is also tried at /usr/bin/firefox-esr.
var FirefoxNames = []string{"firefox-esr", "firefox"}

// FindFirefox returns the Firefox to run, as chromium.Find does for
// Chromium: flag if given, else $BANMEN_FIREFOX, else FirefoxNames on PATH,
// else /usr/bin/firefox-esr. None found wraps chromium.ErrNotFound (a test
// may skip) unless BANMEN_REQUIRE_BROWSER=1.
func FindFirefox(flag string, getenv func(string) string) (string, error) {
	for _, named := range []struct{ how, path string }{{"-firefox", flag}, {FirefoxEnv, getenv(FirefoxEnv)}} {
		if named.path == "" {
			continue
		}
		if fi, err := os.Stat(named.path); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s %s: not an executable file", named.how, named.path)
		}
		return named.path, nil
	}
	if p, err := exec.LookPath(FirefoxNames[0]); err == nil {
		return p, nil
	}
	for _, n := range FirefoxNames[1:] {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	if fi, err := os.Stat("/usr/bin/firefox-esr"); err == nil && !fi.IsDir() {
		return "/usr/bin/firefox-esr", nil
	}
	const hint = "install Debian's firefox-esr (scripts/deps.sh does) or set " + FirefoxEnv
	if getenv(chromium.RequireEnv) == "1" {
		return "", fmt.Errorf("%s=1 and no Firefox on PATH (%v): %s", chromium.RequireEnv, FirefoxNames, hint)
	}
	return "", fmt.Errorf("%w: no Firefox on PATH (%v) or at /usr/bin/firefox-esr: %s", chromium.ErrNotFound, FirefoxNames, hint)
}

// firefoxEngine drives Firefox through WebDriver BiDi, which it speaks
// itself (no geckodriver). One Firefox process serves a whole scenario
// (and, kept by Browsers, the next ones):
// each actor is its own user context (its own cookies and storage, as
// another browser would be) and each tab its own window, so that every
// actor's page is in the foreground.
type firefoxEngine struct{}

// firefoxProc is one Firefox process and its BiDi connection.
type firefoxProc struct {
	cmd  *exec.Cmd
	ws   string // the BiDi endpoint
	dir  string // the fresh profile, removed at the end
	conn *bidi.Conn
	exit chan struct{}

	mu    sync.Mutex
	pages map[string]*firefoxPage // by browsing context, for events

	frontMu sync.Mutex
	front   string // the window brought to the front last

	broken atomic.Bool // a user context it could not remove
}

// usable says whether the Firefox can serve another scenario.
func (p *firefoxProc) usable() bool {
	select {
	case <-p.exit:
		return false
	case <-p.conn.Done():
		return false
	default:
		return !p.broken.Load()
	}
}

type firefoxInstance struct {
	proc    *firefoxProc
	o       startOptions
	uc      string // the user context
	preload string // the preload script's id
	root    *firefoxPage
}

type firefoxPage struct {
	inst *firefoxInstance
	n    int
	id   string // the browsing context

	mu     sync.Mutex
	status map[string]int // the document's HTTP status, by navigation
}

// The preferences of a fresh profile: no first-run pages, no update or
// telemetry traffic, and no throttling of a page that seems hidden (two
// cores run several browsers at once). The Remote Agent sets its own
// recommended preferences on top.
var firefoxPrefs = map[string]any{
	"browser.shell.checkDefaultBrowser":                false,
	"browser.startup.homepage_override.mstone":         "ignore",
	"browser.tabs.warnOnClose":                         false,
	"datareporting.policy.dataSubmissionEnabled":       false,
	"toolkit.telemetry.reportingpolicy.firstRun":       false,
	"app.update.auto":                                  false,
	"extensions.update.enabled":                        false,
	"network.captive-portal-service.enabled":           false,
	"network.connectivity-service.enabled":             false,
	"messaging-system.rsexperimentloader.enabled":      false,
	"browser.safebrowsing.malware.enabled":             false,
	"browser.safebrowsing.phishing.enabled":            false,
	"dom.min_background_timeout_value":                 4,
	"dom.timeout.enable_budget_timer_throttling":       false,
	"dom.ipc.processPriorityManager.enabled":           false,
	"widget.windows.window_occlusion_tracking.enabled": false,
}

var bidiListening = regexp.MustCompile(`WebDriver BiDi listening on (ws://\S+)`)

// process is the scenario's Firefox, taken from the run's Browsers.
func (firefoxEngine) process(ctx context.Context, o startOptions) (*firefoxProc, error) {
	key := fmt.Sprintf("firefox\x00%s\x00%v", o.exe, o.headed)
	pp, err := o.share.take("firefox", key, "firefox", func() (pooled, error) {
		return startFirefox(ctx, o.exe, o.startLimit, o.headed)
	})
	if err != nil {
		return nil, err
	}
	return pp.(*firefoxProc), nil
}

func (e firefoxEngine) prepare(ctx context.Context, o startOptions) error {
	_, err := e.process(ctx, o)
	return err
}

func (e firefoxEngine) start(ctx context.Context, o startOptions) (instance, error) {
	proc, err := e.process(ctx, o)
	if err != nil {
		return nil, err
	}
	in := &firefoxInstance{proc: proc, o: o}
	var uc struct {
		UserContext string `json:"userContext"`
	}
	if err := proc.conn.Call(ctx, "browser.createUserContext", nil, &uc); err != nil {
		return nil, fmt.Errorf("firefox for %s: %w", o.actor, err)
	}
	in.uc = uc.UserContext
	ucs := []string{in.uc}
	if o.dev.UserAgent != "" {
		if err := proc.conn.Call(ctx, "emulation.setUserAgentOverride", map[string]any{"userAgent": o.dev.UserAgent, "userContexts": ucs}, nil); err != nil {
			in.close()
			return nil, fmt.Errorf("user agent: %w", err)
		}
	}
	if o.preload != "" {
		var r struct {
			Script string `json:"script"`
		}
		if err := proc.conn.Call(ctx, "script.addPreloadScript", map[string]any{
			"functionDeclaration": "() => { " + o.preload + " }", "userContexts": ucs,
		}, &r); err != nil {
			in.close()
			return nil, fmt.Errorf("preload script: %w", err)
		}
		in.preload = r.Script
	}
	p, err := in.newPage(ctx, 1)
	if err != nil {
		in.close()
		return nil, err
	}
	in.root = p.(*firefoxPage)
	return in, nil
}

func startFirefox(ctx context.Context, exe string, limit time.Duration, headed bool) (*firefoxProc, error) {
	dir, err := os.MkdirTemp("", "banmen-firefox-")
	if err != nil {
		return nil, err
	}
	var prefs strings.Builder
	for k, v := range firefoxPrefs {
		b, _ := json.Marshal(v)
		fmt.Fprintf(&prefs, "user_pref(%q, %s);\n", k, b)
	}
	if err := os.WriteFile(filepath.Join(dir, "user.js"), []byte(prefs.String()), 0o644); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// Not CommandContext: the process is ended by close, which asks it
	// to quit first.
	args := []string{"--headless", "--no-remote", "--remote-debugging-port=0", "--profile", dir, "about:blank"}
	if headed {
		args = args[1:]
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "MOZ_CRASHREPORTER_DISABLE=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start firefox: %w", err)
	}
	p := &firefoxProc{cmd: cmd, dir: dir, exit: make(chan struct{}), pages: map[string]*firefoxPage{}}
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			if m := bidiListening.FindStringSubmatch(sc.Text()); m != nil && !found {
				found = true
				url <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	go func() {
		cmd.Wait()
		close(p.exit)
	}()
	var ws string
	select {
	case ws = <-url:
	case <-p.exit:
		os.RemoveAll(dir)
		return nil, errors.New("start firefox: it exited before listening for WebDriver BiDi")
	case <-time.After(limit):
		p.kill()
		return nil, fmt.Errorf("start firefox: no WebDriver BiDi endpoint after %v", limit)
	case <-ctx.Done():
		p.kill()
		return nil, ctx.Err()
	}
	p.ws = ws
	p.conn, err = bidi.Dial(ctx, ws+"/session", p.event)
	if err != nil {
		p.kill()
		return nil, err
	}
	if err := p.conn.Call(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}, nil); err != nil {
		p.kill()
		return nil, err
	}
	if err := p.conn.Call(ctx, "session.subscribe", map[string]any{"events": []string{"log.entryAdded", "network.responseCompleted"}}, nil); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

// event hands a console entry or a response to its page.
func (p *firefoxProc) event(method string, params json.RawMessage) {
	var e struct {
		Context string `json:"context"`
		Source  struct {
			Context string `json:"context"`
		} `json:"source"`
	}
	if json.Unmarshal(params, &e) != nil {
		return
	}
	id := e.Context
	if id == "" {
		id = e.Source.Context
	}
	p.mu.Lock()
	pg := p.pages[id]
	p.mu.Unlock()
	if pg == nil {
		return
	}
	switch method {
	case "network.responseCompleted":
		var r struct {
			Navigation *string `json:"navigation"`
			Response   struct {
				Status int `json:"status"`
			} `json:"response"`
		}
		if json.Unmarshal(params, &r) == nil && r.Navigation != nil {
			pg.mu.Lock()
			pg.status[*r.Navigation] = r.Response.Status
			pg.mu.Unlock()
		}
	case "log.entryAdded":
		var l struct {
			Type       string `json:"type"` // console, javascript
			Method     string `json:"method"`
			Level      string `json:"level"`
			Text       string `json:"text"`
			Timestamp  int64  `json:"timestamp"`
			StackTrace *struct {
				CallFrames []struct {
					URL        string `json:"url"`
					LineNumber int    `json:"lineNumber"`
				} `json:"callFrames"`
			} `json:"stackTrace"`
		}
		if json.Unmarshal(params, &l) != nil || pg.inst.o.console == nil {
			return
		}
		c := consoleEntry{page: pg.n, time: time.UnixMilli(l.Timestamp), kind: l.Method, text: l.Text}
		if l.Type == "javascript" {
			// As Chromium words it, so a scenario's messages do not
			// depend on the engine.
			c.kind, c.text, c.jsError = "exception", "Uncaught "+l.Text, true
		} else if l.Method == "error" {
			c.jsError = true
		}
		if l.StackTrace != nil && len(l.StackTrace.CallFrames) > 0 {
			c.url, c.line = l.StackTrace.CallFrames[0].URL, l.StackTrace.CallFrames[0].LineNumber+1
		}
		pg.inst.o.console(c)
	}
}

func (p *firefoxProc) kill() {
	p.cmd.Process.Kill()
	<-p.exit
	os.RemoveAll(p.dir)
}

// close asks Firefox to quit, ends it if it does not, and removes its
// profile.
func (p *firefoxProc) close() {
	if p.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = p.conn.Call(ctx, "browser.close", nil, nil)
		cancel()
		p.conn.Close()
	}
	select {
	case <-p.exit:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.exit
	}
	os.RemoveAll(p.dir)
}

func (in *firefoxInstance) first() page { return in.root }

func (in *firefoxInstance) attach() string {
	return fmt.Sprintf("Firefox (pid %d): WebDriver BiDi at %s, the actor's user context %s; with -headed its windows are on the display", in.proc.cmd.Process.Pid, in.proc.ws, in.uc)
}

func (in *firefoxInstance) newPage(ctx context.Context, n int) (page, error) {
	c := in.proc.conn
	var r struct {
		Context string `json:"context"`
	}
	// A window, not a tab: a tab behind another is hidden, and a hidden
	// page's timers and frames are throttled.
	if err := c.Call(ctx, "browsingContext.create", map[string]any{"type": "window", "userContext": in.uc}, &r); err != nil {
		return nil, fmt.Errorf("open tab %d: %w", n, err)
	}
	p := &firefoxPage{inst: in, n: n, id: r.Context, status: map[string]int{}}
	in.proc.mu.Lock()
	in.proc.pages[p.id] = p
	in.proc.mu.Unlock()
	d := in.o.dev
	if err := c.Call(ctx, "browsingContext.setViewport", map[string]any{
		"context": p.id, "viewport": map[string]any{"width": d.Width, "height": d.Height}, "devicePixelRatio": d.Scale,
	}, nil); err != nil {
		return nil, fmt.Errorf("emulate the device: %w", err)
	}
	return p, nil
}

// close removes the actor's user context, its windows, cookies and
// storage with it; the Firefox goes back to the run's Browsers with the
// scenario's end.
func (in *firefoxInstance) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := in.proc.conn
	if in.preload != "" {
		if err := c.Call(ctx, "script.removePreloadScript", map[string]any{"script": in.preload}, nil); err != nil {
			in.proc.broken.Store(true)
		}
	}
	if in.uc != "" {
		// Removing the user context closes its windows.
		if err := c.Call(ctx, "browser.removeUserContext", map[string]any{"userContext": in.uc}, nil); err != nil {
			// Its storage may live on: this Firefox serves no other
			// scenario.
			in.proc.broken.Store(true)
		}
	}
	in.proc.mu.Lock()
	for id, p := range in.proc.pages {
		if p.inst == in {
			delete(in.proc.pages, id)
		}
	}
	in.proc.mu.Unlock()
}

func (p *firefoxPage) call(ctx context.Context, method string, params map[string]any, result any) error {
	return p.inst.proc.conn.Call(ctx, method, params, result)
}

func (p *firefoxPage) navigate(ctx context.Context, url string) (int, error) {
	var r struct {
		Navigation string `json:"navigation"`
	}
	if err := p.call(ctx, "browsingContext.navigate", map[string]any{"context": p.id, "url": url, "wait": "complete"}, &r); err != nil {
		return 0, err
	}
	// The document's response came before its load event, and events
	// and answers arrive in order.
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status[r.Navigation], nil
}

func (p *firefoxPage) reload(ctx context.Context) error {
	return p.call(ctx, "browsingContext.reload", map[string]any{"context": p.id, "wait": "complete"}, nil)
}

// evalResult is script.evaluate's answer.
type evalResult struct {
	Type   string `json:"type"` // success, exception
	Result struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	} `json:"result"`
	ExceptionDetails struct {
		Text string `json:"text"`
	} `json:"exceptionDetails"`
}

func (p *firefoxPage) evaluate(ctx context.Context, js string, await bool) (evalResult, error) {
	var r evalResult
	err := p.call(ctx, "script.evaluate", map[string]any{
		"expression": js, "target": map[string]any{"context": p.id}, "awaitPromise": await,
		"resultOwnership": "none", "userActivation": true,
	}, &r)
	if err == nil && r.Type == "exception" {
		err = fmt.Errorf("javascript: %s", r.ExceptionDetails.Text)
	}
	return r, err
}

func (p *firefoxPage) eval(ctx context.Context, js string) (json.RawMessage, error) {
	// The value comes back as JSON text, as chromedp's does: BiDi's own
	// serialization of objects is not JSON.
	r, err := p.evaluate(ctx, "(() => { const v = ("+js+"\n); return v === undefined ? 'null' : JSON.stringify(v) })()", false)
	if err != nil {
		return nil, err
	}
	var s string
	if r.Result.Type != "string" || json.Unmarshal(r.Result.Value, &s) != nil {
		return nil, fmt.Errorf("javascript: a %s, not JSON text", r.Result.Type)
	}
	return json.RawMessage(s), nil
}

func (p *firefoxPage) exec(ctx context.Context, js string) error {
	_, err := p.evaluate(ctx, js, true)
	return err
}

// actions performs one input source's actions, in the page's window
// brought to the front first.
func (p *firefoxPage) actions(ctx context.Context, source map[string]any) error {
	if err := p.front(ctx); err != nil {
		return err
	}
	return p.call(ctx, "input.performActions", map[string]any{"context": p.id, "actions": []any{source}}, nil)
}

// front makes the page's window the focused one, as each person's own
// device is to them: the actors share one Firefox, and a window that is
// not the focused one gets its keys but fires no focus events, so a page
// that follows the focus (the board's keyboard cursor) loses track of it.
func (p *firefoxPage) front(ctx context.Context) error {
	pr := p.inst.proc
	// Not mu, which the events take while a call waits for its answer.
	pr.frontMu.Lock()
	defer pr.frontMu.Unlock()
	if pr.front == p.id {
		return nil
	}
	if err := p.call(ctx, "browsingContext.activate", map[string]any{"context": p.id}, nil); err != nil {
		return fmt.Errorf("bring %s's window to the front: %w", p.inst.o.actor, err)
	}
	pr.front = p.id
	return nil
}

func pointer(kind string, acts ...map[string]any) map[string]any {
	return map[string]any{"type": "pointer", "id": kind, "parameters": map[string]any{"pointerType": kind}, "actions": acts}
}

func move(pt point) map[string]any {
	return map[string]any{"type": "pointerMove", "x": math.Round(pt.X), "y": math.Round(pt.Y)}
}

var (
	down = map[string]any{"type": "pointerDown", "button": 0}
	up   = map[string]any{"type": "pointerUp", "button": 0}
)

func (p *firefoxPage) click(ctx context.Context, x, y float64) error {
	return p.actions(ctx, pointer("mouse", move(point{X: x, Y: y}), down, up))
}

func (p *firefoxPage) tap(ctx context.Context, x, y float64) error {
	return p.actions(ctx, pointer("touch", move(point{X: x, Y: y}), down, up))
}

func (p *firefoxPage) drag(ctx context.Context, touch bool, path []point) error {
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

// bidiKeys are WebDriver's codes of the keys the harness presses.
var bidiKeys = map[string]string{
	"Enter": "\uE006", "Tab": "\uE004", "Shift": "\uE008",
	"ArrowLeft": "\uE012", "ArrowUp": "\uE013", "ArrowRight": "\uE014", "ArrowDown": "\uE015",
}

func (p *firefoxPage) key(ctx context.Context, key string, shift bool) error {
	k, ok := bidiKeys[key]
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

func (p *firefoxPage) setOffline(ctx context.Context, off bool) error {
	var conds any
	if off {
		conds = map[string]any{"type": "offline"}
	}
	return p.call(ctx, "emulation.setNetworkConditions", map[string]any{"networkConditions": conds, "contexts": []string{p.id}}, nil)
}

func (p *firefoxPage) screenshot(ctx context.Context) ([]byte, error) {
	// Bounded by the caller's ctx (a step's time), not a fixed limit.
	var r struct {
		Data string `json:"data"`
	}
	if err := p.call(ctx, "browsingContext.captureScreenshot", map[string]any{"context": p.id, "origin": "document"}, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

func (p *firefoxPage) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = p.call(ctx, "browsingContext.close", map[string]any{"context": p.id}, nil)
}
