package harness_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/banmen/banmen/harness"
	"github.com/banmen/banmen/harness/chromium"
	"github.com/banmen/banmen/platform/hosttest"
)

// The browser tests share one host, started by the first of them from
// $BANMEN_BIN (the Makefile sets it) or from binaries built for the run.
var site struct {
	once sync.Once
	host *hosttest.Host
	err  error
}

// browsers are the package's browser processes, kept from one scenario
// (and test) to the next as harness run keeps them, and ended at the end.
var browsers = harness.NewBrowsers()

func TestMain(m *testing.M) {
	code := m.Run()
	browsers.Close()
	if site.host != nil {
		site.host.Stop()
	}
	os.Exit(code)
}

// findBrowser finds the browser as every browser test does (chromium.Find), or
// skips; with BANMEN_REQUIRE_BROWSER=1 (CI) no browser fails instead.
func findBrowser(t *testing.T) string {
	t.Helper()
	p, err := chromium.Find("", os.Getenv)
	if errors.Is(err, chromium.ErrNotFound) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func base(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the browser suite is long; -short skips it")
	}
	site.once.Do(func() {
		site.host, site.err = hosttest.Start(context.Background(), os.Getenv("BANMEN_BIN"))
	})
	if site.err != nil {
		t.Fatalf("start the host: %v", site.err)
	}
	return site.host.URL
}

// hostLog is the shared host's log, for the artifacts of a failure.
func hostLog() string {
	if site.host == nil {
		return ""
	}
	return site.host.LogPath()
}

// timeoutScale is $BANMEN_TIMEOUT_SCALE (the Makefile passes
// TIMEOUT_SCALE), as the harness command's -timeout-scale reads it.
func timeoutScale(t *testing.T) float64 {
	v := os.Getenv("BANMEN_TIMEOUT_SCALE")
	if v == "" {
		return 1
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 {
		t.Fatalf("BANMEN_TIMEOUT_SCALE=%q is not a positive number", v)
	}
	return f
}

func parallel() int {
	if n, err := strconv.Atoi(os.Getenv("BANMEN_HARNESS_PARALLEL")); err == nil && n > 0 {
		return n
	}
	return 2
}

// TestScenarios plays every scenario under scenarios/ in Chromium, Firefox
// and WebKit (TestScenarios/NAME/chromium, .../firefox, .../webkit), each
// its own parallel subtest, so `-run 'TestScenarios/NAME'` plays only that
// one.
func TestScenarios(t *testing.T) {
	scs, err := harness.LoadAll("scenarios")
	if err != nil {
		t.Fatal(err)
	}
	out := os.Getenv("BANMEN_HARNESS_OUT")
	keep := out != ""
	if !keep {
		out = t.TempDir()
	}
	var mu sync.Mutex
	var all harness.Summary
	// At most BANMEN_HARNESS_PARALLEL at once (and go test's -parallel).
	sem := make(chan struct{}, parallel())
	start := time.Now()
	// Cleanups run once every parallel subtest is done.
	t.Cleanup(func() {
		all.Duration = time.Since(start)
		if len(all.Results) == 0 {
			return
		}
		t.Log(all.Line())
		for env, write := range map[string]func(io.Writer) error{
			"BANMEN_HARNESS_JUNIT": all.WriteJUnit,
			"BANMEN_HARNESS_HTML":  all.WriteHTML,
		} {
			if p := os.Getenv(env); p != "" {
				var b bytes.Buffer
				if err := write(&b); err != nil {
					t.Error(err)
				} else if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
					t.Error(err)
				}
			}
		}
	})
	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) {
			if sc.Skip != "" {
				t.Skip(sc.Skip)
			}
			// Parallel too, or each scenario's engines would wait for
			// the slowest of them before the next scenario starts, and
			// one engine's runs (-run 'TestScenarios/.*/firefox') would
			// play one at a time. Either way BANMEN_HARNESS_PARALLEL
			// scenarios play at once.
			t.Parallel()
			for _, engine := range scenarioEngines(sc) {
				t.Run(engine, func(t *testing.T) {
					if why := sc.SkipIn[engine]; why != "" {
						t.Skip(why)
					}
					t.Parallel()
					// One retry: a scenario that passes only on it is
					// reported FLAKY (in the log, JUnit and HTML
					// reports), not hidden as passed nor failing the run.
					cfg := harness.Config{Parallel: 1, Out: out, Log: testLog{t}, Retries: 1, Browsers: browsers}
					for _, e := range strings.Split(engine, "+") {
						switch e {
						case "chromium":
							cfg.Chromium = findBrowser(t)
						case "firefox":
							cfg.Firefox = findFirefox(t)
						case "webkit":
							cfg.WebKit = findWebKit(t)
						}
					}
					if !strings.Contains(engine, "+") {
						cfg.Engines = []string{engine}
					}
					cfg.Base = base(t)
					cfg.HostLog, cfg.TimeoutScale = hostLog(), timeoutScale(t)
					sem <- struct{}{}
					defer func() { <-sem }()
					sum, err := harness.Run(t.Context(), cfg, []*harness.Scenario{sc})
					if err != nil {
						t.Fatal(err)
					}
					mu.Lock()
					all.Results = append(all.Results, sum.Results...)
					mu.Unlock()
					r := sum.Results[0]
					if !r.Passed && !r.Skipped {
						t.Errorf("%s: %v\nartifacts: %s", sc.File, r.Err, strings.Join(r.Artifacts, " "))
					}
					if r.Flaky {
						t.Logf("FLAKY: %s passed only on attempt %d; the first failed: %v\nartifacts: %s", r.Name(), r.Attempts, r.FirstErr, strings.Join(r.Artifacts, " "))
					}
				})
			}
		})
	}
}

// scenarioEngines are the engines a shipped scenario is played in: all
// three, or, when its every actor names a browser, theirs together
// ("firefox+chromium+webkit").
func scenarioEngines(sc *harness.Scenario) []string {
	var own []string
	for _, a := range sc.Actors {
		if a.Browser == "" {
			return harness.EngineNames()
		}
		if !slices.Contains(own, a.Browser) {
			own = append(own, a.Browser)
		}
	}
	return []string{strings.Join(own, "+")}
}

// findFirefox finds Firefox as the harness does, or skips as findBrowser.
func findFirefox(t *testing.T) string {
	t.Helper()
	p, err := harness.FindFirefox("", os.Getenv)
	if errors.Is(err, chromium.ErrNotFound) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// findWebKit finds WebKitWebDriver as the harness does, or skips as
// findBrowser.
func findWebKit(t *testing.T) string {
	t.Helper()
	p, err := harness.FindWebKit("", os.Getenv)
	if errors.Is(err, chromium.ErrNotFound) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestScenarioSelected: `-run TestScenarios/NAME` plays that scenario only
// (the test binary run again, with the one scenario selected).
func TestScenarioSelected(t *testing.T) {
	if os.Getenv("BANMEN_HARNESS_CHILD") != "" {
		t.Skip("in the child run")
	}
	findBrowser(t)
	base(t)
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestScenarios$/^shogi-resume-second-tab$/^chromium$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "BANMEN_HARNESS_CHILD=1", "BANMEN_HARNESS_JUNIT=")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	ran := regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL|SKIP): TestScenarios/(\S+)/(\S+)`).FindAllStringSubmatch(string(b), -1)
	if len(ran) != 1 || ran[0][2] != "shogi-resume-second-tab" || ran[0][3] != "chromium" || ran[0][1] != "PASS" {
		t.Errorf("selecting one scenario ran %v:\n%s", ran, b)
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestFailure proves the harness can fail: a scenario whose expectation is
// wrong fails with a message that names the step, its line and the
// difference, leaves a screenshot and the console, and is a failure in the
// JUnit report.
func TestFailure(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, cfg harness.Config, dir string) {
		sc, err := harness.Parse([]byte(`
name: broken on purpose
variant: shogi
actors:
  - {name: host, device: phone, input: touch}
steps:
  - open: play
  - moves: [7g7f, 3c3d]
  - screenshot: after-two-moves
  - expect: {ply: 3, toMove: [1], within: 1s}
`))
		if err != nil {
			t.Fatal(err)
		}
		out := cfg.Out
		sum, err := harness.Run(t.Context(), cfg, []*harness.Scenario{sc})
		if err != nil {
			t.Fatal(err)
		}
		r := sum.Results[0]
		if r.Passed || r.Err == nil {
			t.Fatal("a wrong expectation passed")
		}
		msg := r.Err.Error()
		for _, want := range []string{"step 4 (line 10, expect)", "ply: want 3, got 2", "to move: want [1], got [0]"} {
			if !strings.Contains(msg, want) {
				t.Errorf("the failure %q does not say %q", msg, want)
			}
		}
		png := filepath.Join(out, "broken-on-purpose"+dir, "host-tab1.png")
		b, err := os.ReadFile(png)
		if err != nil {
			t.Fatalf("no screenshot: %v (artifacts %v)", err, r.Artifacts)
		}
		if !bytes.HasPrefix(b, []byte("\x89PNG")) || len(b) < 1000 {
			t.Errorf("%s is not a screenshot (%d bytes)", png, len(b))
		}
		// The whole page, not the screen: on a phone the move list is below
		// the board, so the picture is taller than the 390x844 screen.
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(b)); err != nil {
			t.Error(err)
		} else if cfg.Height*390 <= cfg.Width*844 {
			t.Errorf("%s is %dx%d, the screen only", png, cfg.Width, cfg.Height)
		}
		shot := filepath.Join(out, "broken-on-purpose"+dir, "after-two-moves.png")
		if len(r.Screenshots) != 1 || r.Screenshots[0] != shot {
			t.Errorf("screenshot steps' files %v, want [%s]", r.Screenshots, shot)
		}
		if _, err := os.Stat(shot); err != nil {
			t.Errorf("the screenshot step: %v", err)
		}
		if _, err := os.Stat(filepath.Join(out, "broken-on-purpose"+dir, "host-console.txt")); err != nil {
			t.Errorf("no console: %v", err)
		}
		if line := sum.Line(); !strings.HasPrefix(line, "0 passed, 1 failed") {
			t.Errorf("summary %q", line)
		}
		var x bytes.Buffer
		if err := sum.WriteJUnit(&x); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`failures="1"`, `<failure message="step 4 (line 10, expect): ply: want 3, got 2`, "[[ATTACHMENT|" + png + "]]"} {
			if !strings.Contains(x.String(), want) {
				t.Errorf("the JUnit report lacks %q:\n%s", want, x.String())
			}
		}
	})
}

// TestRoomFailure: a wrong expectation of one actor in a room scenario
// (several browsers) fails with the step, its line, the actor's difference,
// and a screenshot and console of every actor.
func TestRoomFailure(t *testing.T) {
	t.Parallel()
	browser := findBrowser(t)
	url := base(t)
	sc, err := harness.Parse([]byte(`
name: room broken on purpose
variant: shogi
actors:
  - {name: host, device: phone}
  - {name: guest, device: desktop}
steps:
  - open: room
  - {actor: guest, open: invite of host}
  - moves: [7g7f, 3c3d]
  - {actor: guest, expect: {ply: 3, data: {seat: "0", spectators: "1"}, within: 1s}}
`))
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	sum, err := harness.Run(t.Context(), harness.Config{Base: url, Chromium: browser, Out: out, HostLog: hostLog(), TimeoutScale: timeoutScale(t), Retries: 1}, []*harness.Scenario{sc})
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Results[0]
	if r.Passed || r.Err == nil {
		t.Fatal("a wrong expectation passed")
	}
	msg := r.Err.Error()
	for _, want := range []string{"step 4 (line 11, expect): actor guest (chromium): ply: want 3, got 2", `data-seat: want "0", got "1"`, `data-spectators: want "1", got "0"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("the failure %q does not say %q", msg, want)
		}
	}
	// Each attempt has its folder; the retry also pictures every actor
	// before the step the first attempt failed at. The trace links it all.
	for _, f := range []string{"attempt-1/host-tab1.png", "attempt-1/guest-tab1.png", "attempt-1/host-console.txt", "attempt-1/guest-console.txt",
		"attempt-1/host.log", "attempt-1/trace.html", "attempt-1/guest-tab1-socket.txt", "attempt-1/host-tab1-socket.txt",
		"attempt-2/host-tab1-before.png", "attempt-2/guest-tab1-before.png", "attempt-2/guest-tab1.png", "attempt-2/trace.html"} {
		if _, err := os.Stat(filepath.Join(out, "room-broken-on-purpose", f)); err != nil {
			t.Errorf("no %s: %v (artifacts %v)", f, err, r.Artifacts)
		}
	}
	if r.Attempts != 2 || r.Trace != filepath.Join(out, "room-broken-on-purpose", "attempt-2", "trace.html") {
		t.Errorf("attempts %d, trace %s", r.Attempts, r.Trace)
	}
	trace, _ := os.ReadFile(filepath.Join(out, "room-broken-on-purpose", "attempt-2", "trace.html"))
	for _, w := range []string{"moves (2)", "guest-tab1-before.png", "guest-tab1-socket.txt", "host.log", "ply: want 3, got 2"} {
		if !bytes.Contains(trace, []byte(w)) {
			t.Errorf("the trace lacks %q", w)
		}
	}
	msgs, _ := os.ReadFile(filepath.Join(out, "room-broken-on-purpose", "attempt-1", "guest-tab1-socket.txt"))
	for _, w := range []string{"sent", `"type":"hello"`, "received", `"type":"welcome"`, `"type":"move"`} {
		if !bytes.Contains(msgs, []byte(w)) {
			t.Errorf("the guest's room messages lack %q:\n%s", w, msgs)
		}
	}
}

// TestScenarioTimeout: a scenario stopped by its own time limit says so,
// with the step it stopped and the limit (scaled by TimeoutScale), not in
// the terms of the browser call it cut short.
func TestScenarioTimeout(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, cfg harness.Config, _ string) {
		sc, err := harness.Parse([]byte(`
variant: shogi
timeout: 8s
steps:
  - open: play
  - expect: {ply: 5, within: 10m}
`))
		if err != nil {
			t.Fatal(err)
		}
		sc.Name = "out-of-time"
		cfg.TimeoutScale = 1.5
		sum, err := harness.Run(t.Context(), cfg, []*harness.Scenario{sc})
		if err != nil {
			t.Fatal(err)
		}
		r := sum.Results[0]
		msg := fmt.Sprint(r.Err)
		if r.Passed || !strings.HasPrefix(msg, "scenario timeout (12s with -timeout-scale 1.5) reached during step 2 (line 6, expect)") {
			t.Errorf("passed %v, failure %q", r.Passed, msg)
		}
		for _, no := range []string{"deadline", "script.evaluate", "performActions"} {
			if strings.Contains(msg, no) {
				t.Errorf("the failure %q speaks of %q", msg, no)
			}
		}
		var te *harness.TimeoutError
		if !errors.As(r.Err, &te) || te.Limit != 12*time.Second {
			t.Errorf("%T %+v is no TimeoutError of 12s", r.Err, te)
		}
	})
}

// TestScreenshotStepTime: a screenshot step has the step's time, however
// long: a page whose main thread is busy for 11s is still pictured with
// -step_timeout 40s (there was a fixed 10s limit).
func TestScreenshotStepTime(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, cfg harness.Config, dir string) {
		sc, err := harness.Parse([]byte(`
variant: shogi
steps:
  - open: play
  - script: "setTimeout(() => { const end = Date.now() + 11000; while (Date.now() < end) {} }, 0)"
  - screenshot: busy-page
  - expect: {ply: 0}
`))
		if err != nil {
			t.Fatal(err)
		}
		sc.Name = "busy-screenshot"
		cfg.StepTimeout = 40 * time.Second
		sum, err := harness.Run(t.Context(), cfg, []*harness.Scenario{sc})
		if err != nil {
			t.Fatal(err)
		}
		if r := sum.Results[0]; !r.Passed {
			t.Errorf("a screenshot of a busy page failed: %v", r.Err)
		}
	})
}

// TestIllegalMove: a scenario that names a move the position does not allow
// fails on that step and lists what is legal.
func TestIllegalMove(t *testing.T) {
	t.Parallel()
	browser := findBrowser(t)
	url := base(t)
	sc, err := harness.Parse([]byte(`
variant: xiangqi
steps:
  - open: play
  - move: a0a5
`))
	if err != nil {
		t.Fatal(err)
	}
	sc.Name = "illegal"
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	sum, err := harness.Run(ctx, harness.Config{Base: url, Chromium: browser, Out: t.TempDir()}, []*harness.Scenario{sc})
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Results[0]
	if r.Passed {
		t.Fatal("an illegal move passed")
	}
	if msg := fmt.Sprint(r.Err); !strings.Contains(msg, "move a0a5 is not legal at ply 0") || !strings.Contains(msg, "legal: ") {
		t.Errorf("failure %q", msg)
	}
}

// TestJSError: an uncaught exception in the page fails the scenario, even
// when every step passed.
func TestJSError(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, cfg harness.Config, _ string) {
		sc, err := harness.Parse([]byte(`
variant: shogi
steps:
  - open: play
  - script: "setTimeout(() => { throw new Error('boom on purpose') })"
  - wait: 300ms
  - expect: {ply: 0}
`))
		if err != nil {
			t.Fatal(err)
		}
		sc.Name = "jserror"
		sum, err := harness.Run(t.Context(), cfg, []*harness.Scenario{sc})
		if err != nil {
			t.Fatal(err)
		}
		if r := sum.Results[0]; r.Passed || !strings.Contains(fmt.Sprint(r.Err), "JavaScript errors: host tab1: Uncaught Error: boom on purpose") {
			t.Errorf("an uncaught exception: passed %v, %v", r.Passed, r.Err)
		}
	})
}

// TestComputerFailure: the computer page's steps fail when they should: a
// level the Difficulty dialog does not offer, and body data, a notice key and
// the busy flag that do not hold, each named with what the page has.
func TestComputerFailure(t *testing.T) {
	t.Parallel()
	browser := findBrowser(t)
	url := base(t)
	var scs []*harness.Scenario
	for name, text := range map[string]string{
		"no-such-level": `
variant: shogi
actors: [{name: host, device: phone}]
steps:
  - open: computer
  - press: level
  - select: {field: level, value: expert}
`,
		"wrong-data": `
variant: xiangqi
actors: [{name: host, device: phone}]
steps:
  - open: computer
  - expect: {data: {level: hard}, notice: ui.resumed, busy: true, within: 1s}
`,
	} {
		sc, err := harness.Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		sc.Name = name
		scs = append(scs, sc)
	}
	sum, err := harness.Run(t.Context(), harness.Config{Base: url, Chromium: browser, Parallel: 2, Out: t.TempDir()}, scs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"no-such-level": {"step 3 (line 7, select level)", `#level-choices has no choice "expert" (have easy, medium, hard)`},
		"wrong-data":    {"step 2 (line 6, expect)", `busy: want true, got false`, `data-level: want "hard", got "medium"`, `no notice or status with key "ui.resumed" is shown (shown: ui.toMove)`},
	}
	for _, r := range sum.Results {
		if r.Passed {
			t.Errorf("%s passed", r.Scenario.Name)
			continue
		}
		for _, w := range want[r.Scenario.Name] {
			if !strings.Contains(fmt.Sprint(r.Err), w) {
				t.Errorf("%s: the failure %q does not say %q", r.Scenario.Name, r.Err, w)
			}
		}
	}
}

// TestOpenFailures: a page the site answers with an HTTP error fails its
// open step, and a scenario of a variant the site does not have fails
// before any browser starts, naming the variants it has.
func TestOpenFailures(t *testing.T) {
	t.Parallel()
	eachEngine(t, func(t *testing.T, cfg harness.Config, _ string) {
		var scs []*harness.Scenario
		for name, text := range map[string]string{
			"http-404": `
variant: shogi
steps:
  - open: /{lang}/no-such-variant/play?mode=local
`,
			"unknown-variant": `
variant: no-such-variant
steps:
  - open: play
`,
		} {
			sc, err := harness.Parse([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			sc.Name = name
			scs = append(scs, sc)
		}
		cfg.Parallel = 2
		sum, err := harness.Run(t.Context(), cfg, scs)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{
			"http-404":        {"step 1 (line 4, open /{lang}/no-such-variant/play?mode=local)", "HTTP 404"},
			"unknown-variant": {`variant "no-such-variant" is not on the site`, "shogi"},
		}
		for _, r := range sum.Results {
			if r.Passed {
				t.Errorf("%s passed", r.Scenario.Name)
				continue
			}
			for _, w := range want[r.Scenario.Name] {
				if !strings.Contains(fmt.Sprint(r.Err), w) {
					t.Errorf("%s: the failure %q does not say %q", r.Scenario.Name, r.Err, w)
				}
			}
		}
	})
}

// eachEngine runs f as a subtest per engine (chromium, firefox, webkit)
// with a Config for it; dir is what the engine adds to a scenario's folder
// name.
func eachEngine(t *testing.T, f func(t *testing.T, cfg harness.Config, dir string)) {
	for _, engine := range harness.EngineNames() {
		t.Run(engine, func(t *testing.T) {
			cfg := harness.Config{Engines: []string{engine}, Out: t.TempDir(), Browsers: browsers}
			dir := ""
			switch engine {
			case "firefox":
				cfg.Firefox, dir = findFirefox(t), "-firefox"
			case "webkit":
				cfg.WebKit, dir = findWebKit(t), "-webkit"
			default:
				cfg.Chromium = findBrowser(t)
			}
			cfg.Base = base(t)
			cfg.HostLog, cfg.TimeoutScale = hostLog(), timeoutScale(t)
			f(t, cfg, dir)
		})
	}
}

// TestPauseOnFailure: with PauseOnFailure a failed scenario's browsers stay
// open, the log says how to attach to each (Chromium's DevTools answers on
// the port it names), and the run ends when its context does.
func TestPauseOnFailure(t *testing.T) {
	t.Parallel()
	browser := findBrowser(t)
	url := base(t)
	sc, err := harness.Parse([]byte(`
name: paused on purpose
variant: shogi
steps:
  - open: play
  - expect: {ply: 3, within: 1s}
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	logR, logW := io.Pipe()
	done := make(chan harness.Summary, 1)
	go func() {
		sum, _ := harness.Run(ctx, harness.Config{Base: url, Chromium: browser, Out: t.TempDir(), Log: logW, PauseOnFailure: true, SlowMo: 50 * time.Millisecond}, []*harness.Scenario{sc})
		logW.Close()
		done <- sum
	}()
	sc2 := bufio.NewScanner(logR)
	var port string
	for sc2.Scan() {
		line := sc2.Text()
		if m := regexp.MustCompile(`host: Chromium: DevTools on (http://127\.0\.0\.1:\d+)`).FindStringSubmatch(line); m != nil {
			port = m[1]
			break
		}
	}
	if port == "" {
		t.Fatal("no line said how to attach")
	}
	res, err := http.Get(port + "/json/version")
	if err != nil {
		t.Fatalf("the paused browser's DevTools: %v", err)
	}
	res.Body.Close()
	select {
	case <-done:
		t.Fatal("the run ended while paused")
	default:
	}
	cancel()
	go io.Copy(io.Discard, logR)
	if sum := <-done; len(sum.Results) != 1 || sum.Results[0].Passed {
		t.Errorf("results %+v", sum.Results)
	}
}
