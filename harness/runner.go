package harness

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/banmen/banmen/harness/chromium"
	"github.com/banmen/banmen/platform/client"
)

// Config is how scenarios run.
type Config struct {
	// Base is the site's address ("http://localhost:8080").
	Base string
	// Chromium is the browser binary; empty finds one as chromium.Find does
	// ($BANMEN_CHROMIUM, PATH, Debian's path).
	Chromium string
	// Firefox is the Firefox binary, needed when an engine or an actor is
	// firefox; empty finds one as FindFirefox does.
	Firefox string
	// WebKit is WebKitWebDriver (Debian's webkit2gtk-driver), needed when
	// an engine or an actor is webkit; empty finds one as FindWebKit does.
	WebKit string
	// Engines are the browser engines every scenario is played in, one
	// result each: "chromium" (the default), "firefox" and "webkit". An actor with a
	// browser of its own keeps it; a scenario whose every actor names one
	// is played once.
	Engines []string
	// Parallel is how many scenarios run at once (at least 1).
	Parallel int
	// Out is where failure screenshots and consoles go, one folder per
	// scenario; empty means a new temporary folder.
	Out string
	// StepTimeout bounds each wait of a step (10s if zero).
	StepTimeout time.Duration
	// Log receives a line per scenario as it ends; nil discards them.
	Log io.Writer
	// Retries is how many more times a failed scenario is played. One
	// that passes on a retry is reported flaky, not passed. With retries,
	// each attempt writes into its own folder (attempt-1, attempt-2...).
	Retries int
	// TimeoutScale multiplies every limit the harness keeps: each
	// scenario's timeout, the step timeout (and an expect's within), a
	// screenshot's, a browser's start. 0 means 1; 2 suits a machine twice
	// as slow.
	TimeoutScale float64
	// Headed shows the browsers on the display ($DISPLAY) instead of
	// headless, to watch a scenario or debug it.
	Headed bool
	// SlowMo pauses before every input and every page load, to follow a
	// scenario by eye.
	SlowMo time.Duration
	// PauseOnFailure keeps a failed scenario's browsers open, says on Log
	// how to attach to each, and waits until ctx ends (Ctrl-C in the
	// harness command) before closing them.
	PauseOnFailure bool
	// Browsers keeps the browser processes between scenarios (see
	// Browsers): a program that calls Run several times (a test per
	// scenario) gives every call the same one, and closes it at the end.
	// Nil: Run keeps its own, for its scenarios, closed when it returns.
	Browsers *Browsers
	// HostLog is the site's log file, when the caller runs the site: a
	// failed attempt's artifacts include what it wrote during the attempt
	// (host.log).
	HostLog string
}

// scaled is a limit multiplied by TimeoutScale.
func (cfg *Config) scaled(d time.Duration) time.Duration {
	if cfg.TimeoutScale <= 0 {
		return d
	}
	return time.Duration(float64(d) * cfg.TimeoutScale)
}

// browserStart bounds a browser's start (before its first page answers).
const browserStart = 60 * time.Second

// SetupError is what keeps a whole run from starting (no browser, a site
// that cannot be reached): Run checks these once, before any scenario, and
// the command exits 2 on one.
type SetupError struct {
	What string
	Err  error
}

func (e *SetupError) Error() string { return e.What + ": " + e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// Result is how one scenario went in one engine.
type Result struct {
	Scenario *Scenario
	// Engine is the run's engine ("chromium", "firefox"), or the actors'
	// ("firefox+chromium") for a scenario whose actors each name their own.
	Engine  string
	Passed  bool
	Skipped bool
	// SkipReason is why it was skipped in this engine (the scenario's
	// skipIn); empty means the scenario's own Skip.
	SkipReason string
	Err        error
	Duration   time.Duration
	// Artifacts are the screenshots, consoles and host log written for the
	// failed attempts, in order.
	Artifacts []string
	// Missing says what a failure's artifacts lack and why (a screenshot
	// that timed out), so that no evidence vanishes unsaid.
	Missing []string
	// Trace is the failed (last failed) attempt's trace.html: its steps
	// and their times, every actor's pictures (before the failing step on
	// a retry, and after), consoles, room messages and host log.
	Trace string
	// Screenshots are the files of the scenario's screenshot steps.
	Screenshots []string
	// Steps are the steps played (of the last attempt), with their times.
	Steps []StepResult
	// Attempts is how many times the scenario was played (1 without
	// retries), Tries each attempt; Duration is the time of them all.
	// Flaky is set when it passed only on a retry; FirstErr is then the
	// first attempt's failure.
	Attempts int
	Tries    []Try
	Flaky    bool
	FirstErr error
}

// Try is one attempt at a scenario: its error (nil when it passed), time,
// steps and the artifacts of its failure.
type Try struct {
	Err       error
	Duration  time.Duration
	Steps     []StepResult
	Artifacts []string
	Missing   []string
	Trace     string
}

// Summary is the results of a run, in the order the scenarios were given.
type Summary struct {
	Results  []Result
	Duration time.Duration
}

// Counts returns how many scenarios passed, failed and were skipped. A flaky
// scenario (passed only on a retry) is none of these: see Flaky.
func (s Summary) Counts() (passed, failed, skipped int) {
	for _, r := range s.Results {
		switch {
		case r.Skipped, r.Flaky:
			if r.Skipped {
				skipped++
			}
		case r.Passed:
			passed++
		default:
			failed++
		}
	}
	return
}

// Flaky returns how many scenarios passed only on a retry.
func (s Summary) Flaky() int {
	n := 0
	for _, r := range s.Results {
		if r.Flaky {
			n++
		}
	}
	return n
}

// Line is the summary line: "N passed, N failed".
func (s Summary) Line() string {
	p, f, sk := s.Counts()
	line := fmt.Sprintf("%d passed, %d failed", p, f)
	if fl := s.Flaky(); fl > 0 {
		line = fmt.Sprintf("%d passed, %d flaky, %d failed", p, fl, f)
	}
	if sk > 0 {
		line += fmt.Sprintf(" (%d skipped)", sk)
	}
	return line + fmt.Sprintf(" in %.1fs", s.Duration.Seconds())
}

// Run plays the scenarios against cfg.Base, cfg.Parallel at a time.
func Run(ctx context.Context, cfg Config, scenarios []*Scenario) (Summary, error) {
	if cfg.Parallel < 1 {
		cfg.Parallel = 1
	}
	if cfg.StepTimeout == 0 {
		cfg.StepTimeout = 10 * time.Second
	}
	if cfg.TimeoutScale <= 0 {
		cfg.TimeoutScale = 1
	}
	// From here on the step timeout is the scaled one.
	cfg.StepTimeout = cfg.scaled(cfg.StepTimeout)
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if len(cfg.Engines) == 0 {
		cfg.Engines = []string{"chromium"}
	}
	runs, need, err := plan(cfg.Engines, scenarios)
	if err != nil {
		return Summary{}, &SetupError{What: "browser engines", Err: err}
	}
	if need["chromium"] {
		if cfg.Chromium == "" {
			p, err := chromium.Find("", os.Getenv)
			if err != nil {
				return Summary{}, &SetupError{What: "no browser", Err: err}
			}
			cfg.Chromium = p
		}
		if err := isFile(cfg.Chromium); err != nil {
			return Summary{}, &SetupError{What: "no browser at " + cfg.Chromium, Err: err}
		}
	}
	if need["firefox"] {
		if cfg.Firefox == "" {
			p, err := FindFirefox("", os.Getenv)
			if err != nil {
				return Summary{}, &SetupError{What: "no Firefox", Err: err}
			}
			cfg.Firefox = p
		}
		if err := isFile(cfg.Firefox); err != nil {
			return Summary{}, &SetupError{What: "no Firefox at " + cfg.Firefox, Err: err}
		}
	}
	if need["webkit"] {
		if cfg.WebKit == "" {
			p, err := FindWebKit("", os.Getenv)
			if err != nil {
				return Summary{}, &SetupError{What: "no WebKit", Err: err}
			}
			cfg.WebKit = p
		}
		if err := isFile(cfg.WebKit); err != nil {
			return Summary{}, &SetupError{What: "no WebKitWebDriver at " + cfg.WebKit, Err: err}
		}
	}
	if cfg.Out == "" {
		dir, err := os.MkdirTemp("", "banmen-harness-out-")
		if err != nil {
			return Summary{}, err
		}
		cfg.Out = dir
	}
	if cfg.Browsers == nil {
		cfg.Browsers = NewBrowsers()
		defer cfg.Browsers.Close()
	}
	c := client.New(cfg.Base, nil)
	start := time.Now()
	onSite, err := siteVariants(ctx, c)
	if err != nil {
		// Checked once: every scenario would fail the same way.
		return Summary{}, &SetupError{What: "the site " + cfg.Base + " cannot be reached", Err: err}
	}
	results := make([]Result, len(runs))
	sem := make(chan struct{}, cfg.Parallel)
	var wg sync.WaitGroup
	var logMu sync.Mutex
	for i, run := range runs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r := runOne(ctx, &cfg, c, run, onSite)
			results[i] = r
			logMu.Lock()
			defer logMu.Unlock()
			fmt.Fprintln(cfg.Log, r.line())
		})
	}
	wg.Wait()
	return Summary{Results: results, Duration: time.Since(start)}, nil
}

// scenarioRun is one scenario in one engine.
type scenarioRun struct {
	sc     *Scenario
	engine string // the run's, or the actors' own ("firefox+chromium")
}

// plan lists the runs of the scenarios in the engines, and which engines
// they need.
func plan(engs []string, scs []*Scenario) ([]scenarioRun, map[string]bool, error) {
	need := map[string]bool{}
	for _, e := range engs {
		if _, ok := engines[e]; !ok {
			return nil, nil, fmt.Errorf("no browser engine %q (have %s)", e, strings.Join(EngineNames(), ", "))
		}
	}
	var runs []scenarioRun
	for _, sc := range scs {
		own := true
		var theirs []string
		for _, a := range sc.Actors {
			if a.Browser == "" {
				own = false
				continue
			}
			if !slices.Contains(theirs, a.Browser) {
				theirs = append(theirs, a.Browser)
			}
			if sc.Skip == "" {
				need[a.Browser] = true
			}
		}
		if own {
			runs = append(runs, scenarioRun{sc, strings.Join(theirs, "+")})
			continue
		}
		for _, e := range engs {
			runs = append(runs, scenarioRun{sc, e})
			if sc.Skip == "" && sc.SkipIn[e] == "" {
				need[e] = true
			}
		}
	}
	return runs, need, nil
}

func isFile(p string) error {
	fi, err := os.Stat(p)
	if err == nil && fi.IsDir() {
		err = errors.New("a directory")
	}
	return err
}

// Name is the scenario's name, with the engine when it is not Chromium
// alone: "shogi-offline [firefox]".
func (r Result) Name() string {
	if r.Engine == "" || r.Engine == "chromium" {
		return r.Scenario.Name
	}
	return r.Scenario.Name + " [" + r.Engine + "]"
}

func runOne(ctx context.Context, cfg *Config, c *client.Client, run scenarioRun, onSite []string) Result {
	sc := run.sc
	r := Result{Scenario: sc, Engine: run.engine}
	if sc.Skip != "" {
		r.Skipped = true
		return r
	}
	if why := sc.SkipIn[run.engine]; why != "" {
		r.Skipped, r.SkipReason = true, "not in "+run.engine+": "+why
		return r
	}
	if !slices.Contains(onSite, sc.Variant) {
		// Every page of an unknown variant is a 404: say so before
		// any browser starts.
		r.Err = fmt.Errorf("variant %q is not on the site %s (it has %s)", sc.Variant, c.Base(), strings.Join(onSite, ", "))
		return r
	}
	failedAt := 0 // the step the last attempt failed at
	return retry(cfg.Retries, func(n int) Result {
		dir := filepath.Join(cfg.Out, slug(r.Name()))
		if cfg.Retries > 0 {
			dir = filepath.Join(dir, fmt.Sprintf("attempt-%d", n))
		}
		a := attempt(ctx, cfg, c, run, dir, failedAt)
		var se *StepError
		if errors.As(a.Err, &se) {
			failedAt = se.Step
		}
		return a
	})
}

// retry plays a scenario once and up to n more times while it fails (play
// is given the attempt's number, from 1); one that passes after a failure
// is flaky and keeps the first failure. Every attempt is kept in Tries,
// with its error and artifacts; Duration is the time of them all.
func retry(n int, play func(attempt int) Result) Result {
	var r Result
	var tries []Try
	var total time.Duration
	var artifacts, missing []string
	var trace string
	for i := 0; i <= n; i++ {
		r = play(i + 1)
		tries = append(tries, Try{Err: r.Err, Duration: r.Duration, Steps: r.Steps, Artifacts: r.Artifacts, Missing: r.Missing, Trace: r.Trace})
		if r.Trace != "" {
			trace = r.Trace
		}
		total += r.Duration
		artifacts, missing = append(artifacts, r.Artifacts...), append(missing, r.Missing...)
		if r.Passed {
			break
		}
	}
	r.Attempts, r.Tries, r.Duration = len(tries), tries, total
	// Every failed attempt's screenshots and consoles are the evidence.
	r.Artifacts, r.Missing, r.Trace = artifacts, missing, trace
	if r.Passed && r.Attempts > 1 {
		r.Flaky, r.FirstErr = true, tries[0].Err
	}
	return r
}

// attempt plays a scenario once; dir is where its files go. before is the
// step an earlier attempt failed at (0: none), whose pictures are taken
// before it is played again, for the trace.
func attempt(ctx context.Context, cfg *Config, c *client.Client, run scenarioRun, dir string, before int) Result {
	sc := run.sc
	r := Result{Scenario: sc, Engine: run.engine}
	start := time.Now()
	logFrom := fileSize(cfg.HostLog)
	engine := run.engine
	if _, ok := engines[engine]; !ok {
		engine = "chromium" // unused: every actor names their own
	}
	s := &session{sc: sc, name: r.Name(), dir: dir, before: before, engine: engine, share: newShare(cfg.Browsers), cfg: cfg, client: c, browsers: map[string]*browser{}}
	defer s.close()
	// The browser processes first: their start has its own limit and
	// is not the scenario's time.
	err := s.prepare(ctx)
	limit := cfg.scaled(time.Duration(sc.Timeout))
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err == nil {
		err = s.run(sctx)
	}
	if err != nil {
		// Its browsers are not given to the next scenario (or attempt):
		// whatever went wrong may have been theirs.
		s.share.keep.Store(false)
	}
	r.Duration = time.Since(start)
	r.Screenshots = s.shots
	r.Steps = s.steps
	if err != nil {
		if errors.Is(sctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			// What ran out is the scenario's own time, whatever the
			// browser call it cut short says.
			err = &TimeoutError{Limit: limit, Scale: cfg.TimeoutScale, Err: err}
		}
		r.Err = err
		// The scenario's context may be the one that ran out: the
		// artifacts get their own time.
		actx, acancel := context.WithTimeout(context.Background(), cfg.scaled(30*time.Second))
		r.Artifacts, r.Missing = s.artifacts(actx, dir, logFrom)
		acancel()
		r.Artifacts = append(s.shotsBefore, r.Artifacts...)
		r.Trace = s.writeTrace(dir, r, start)
		if r.Trace != "" {
			r.Artifacts = append(r.Artifacts, r.Trace)
		}
		if cfg.PauseOnFailure {
			s.pause(ctx, r)
		}
		return r
	}
	r.Passed = true
	return r
}

// TimeoutError is a scenario stopped by its own time limit (its timeout
// times Config.TimeoutScale), with the step it stopped (a *StepError) or the
// error it stopped with.
type TimeoutError struct {
	Limit time.Duration
	Scale float64
	Err   error
}

func (e *TimeoutError) Error() string {
	limit := e.Limit.String()
	if e.Scale != 0 && e.Scale != 1 {
		limit += fmt.Sprintf(" with -timeout-scale %g", e.Scale)
	}
	var se *StepError
	if errors.As(e.Err, &se) {
		return fmt.Sprintf("scenario timeout (%s) reached during %s", limit, se.where())
	}
	return fmt.Sprintf("scenario timeout (%s) reached: %v", limit, e.Err)
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// fileSize is a file's size, 0 when it cannot be read.
func fileSize(p string) int64 {
	if p == "" {
		return 0
	}
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// siteVariants asks the site which variants it has.
func siteVariants(ctx context.Context, c *client.Client) ([]string, error) {
	vs, err := c.Variants(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(vs))
	for i, v := range vs {
		ids[i] = v.ID
	}
	return ids, nil
}

// Why is why a skipped result was skipped.
func (r Result) Why() string {
	if r.SkipReason != "" {
		return r.SkipReason
	}
	return r.Scenario.Skip
}

func (r Result) line() string {
	switch {
	case r.Skipped:
		return fmt.Sprintf("SKIP  %s: %s", r.Name(), r.Why())
	case r.Flaky:
		line := fmt.Sprintf("FLAKY %s (%.1fs, %d attempts): passed on attempt %d; first: %v", r.Name(), r.Duration.Seconds(), r.Attempts, r.Attempts, r.FirstErr)
		return line + r.evidence()
	case r.Passed:
		return fmt.Sprintf("PASS  %s (%.1fs)", r.Name(), r.Duration.Seconds())
	}
	if r.Attempts > 1 {
		return fmt.Sprintf("FAIL  %s (%.1fs, %d attempts): %v", r.Name(), r.Duration.Seconds(), r.Attempts, r.Err) + r.evidence()
	}
	return fmt.Sprintf("FAIL  %s (%.1fs): %v", r.Name(), r.Duration.Seconds(), r.Err) + r.evidence()
}

// evidence lists, under a result's line, each earlier attempt's failure,
// the artifacts and what they lack.
func (r Result) evidence() string {
	var b strings.Builder
	if len(r.Tries) > 1 {
		for i, t := range r.Tries {
			if t.Err != nil {
				fmt.Fprintf(&b, "\n      attempt %d (%.1fs): %v", i+1, t.Duration.Seconds(), t.Err)
			}
		}
	}
	if len(r.Artifacts) > 0 {
		b.WriteString("\n      artifacts: " + strings.Join(r.Artifacts, " "))
	}
	for _, m := range r.Missing {
		b.WriteString("\n      missing: " + m)
	}
	return b.String()
}

var nonSlug = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)

func slug(s string) string { return strings.Trim(nonSlug.ReplaceAllString(s, "-"), "-") }

// WriteJUnit writes the summary as a JUnit XML report, the format CI
// systems read; a failure's artifacts are listed in its system-out.
func (s Summary) WriteJUnit(w io.Writer) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type skipped struct {
		Message string `xml:"message,attr"`
	}
	// flakyFailure is Maven Surefire's element for a test that failed and
	// then passed on a rerun; Jenkins and GitLab read it.
	type flaky struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		File      string   `xml:"file,attr,omitempty"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		Skipped   *skipped `xml:"skipped,omitempty"`
		Flaky     *flaky   `xml:"flakyFailure,omitempty"`
		SystemOut string   `xml:"system-out,omitempty"`
	}
	type suite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Time     string     `xml:"time,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	_, f, sk := s.Counts()
	out := suite{Name: "banmen-harness", Tests: len(s.Results), Failures: f, Skipped: sk, Time: secs(s.Duration)}
	for _, r := range s.Results {
		tc := testcase{Name: r.Name(), Classname: "harness." + r.Scenario.Variant, File: r.Scenario.File, Time: secs(r.Duration)}
		switch {
		case r.Skipped:
			tc.Skipped = &skipped{Message: r.Why()}
		case r.Flaky:
			tc.Flaky = &flaky{Message: firstLine(fmt.Sprint(r.FirstErr)), Text: fmt.Sprint(r.FirstErr)}
			tc.SystemOut = attachments(r.Artifacts) + r.triesText()
		case !r.Passed:
			tc.Failure = &failure{Message: firstLine(r.Err.Error()), Text: r.Err.Error()}
			tc.SystemOut = attachments(r.Artifacts) + r.triesText()
		}
		out.Cases = append(out.Cases, tc)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// triesText says, for a report, how many attempts ran, each one's
// failure, and what the artifacts lack.
func (r Result) triesText() string {
	var b strings.Builder
	if r.Attempts > 1 {
		fmt.Fprintf(&b, "%d attempts in %.1fs\n", r.Attempts, r.Duration.Seconds())
		for i, t := range r.Tries {
			if t.Err != nil {
				fmt.Fprintf(&b, "attempt %d (%.1fs): %v\n", i+1, t.Duration.Seconds(), t.Err)
			}
		}
	}
	for _, m := range r.Missing {
		fmt.Fprintf(&b, "missing: %s\n", m)
	}
	return b.String()
}

// attachments lists files in the attachment convention of Jenkins and
// GitLab.
func attachments(files []string) string {
	var b strings.Builder
	for _, a := range files {
		fmt.Fprintf(&b, "[[ATTACHMENT|%s]]\n", a)
	}
	return b.String()
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
