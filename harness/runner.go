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
	// Engines are the browser engines every scenario is played in, one
	// result each: "chromium" (the default) and "firefox". An actor with a
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
	// that passes on a retry is reported flaky, not passed.
	Retries int
}

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
	// Artifacts are the screenshots and consoles written for a failure.
	Artifacts []string
	// Screenshots are the files of the scenario's screenshot steps.
	Screenshots []string
	// Steps are the steps played (of the last attempt), with their times.
	Steps []StepResult
	// Attempts is how many times the scenario was played (1 without
	// retries). Flaky is set when it passed only on a retry; FirstErr is
	// then the first attempt's failure.
	Attempts int
	Flaky    bool
	FirstErr error
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
	if cfg.Out == "" {
		dir, err := os.MkdirTemp("", "banmen-harness-out-")
		if err != nil {
			return Summary{}, err
		}
		cfg.Out = dir
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
			return nil, nil, fmt.Errorf("no browser engine %q (have %s)", e, strings.Join(engineNames(), ", "))
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
	return retry(cfg.Retries, func() Result { return attempt(ctx, cfg, c, run) })
}

// retry plays a scenario once and up to n more times while it fails; one
// that passes after a failure is flaky and keeps the first failure.
func retry(n int, play func() Result) Result {
	r := play()
	r.Attempts = 1
	first := r
	for i := 0; i < n && !r.Passed; i++ {
		r = play()
		r.Attempts = i + 2
	}
	if r.Passed && r.Attempts > 1 {
		r.Flaky, r.FirstErr = true, first.Err
		// The first failure's screenshots and console are the evidence.
		r.Artifacts = first.Artifacts
	}
	return r
}

func attempt(ctx context.Context, cfg *Config, c *client.Client, run scenarioRun) Result {
	sc := run.sc
	r := Result{Scenario: sc, Engine: run.engine}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, time.Duration(sc.Timeout))
	defer cancel()
	engine := run.engine
	if _, ok := engines[engine]; !ok {
		engine = "chromium" // unused: every actor names their own
	}
	s := &session{sc: sc, name: r.Name(), engine: engine, share: newShare(), cfg: cfg, client: c, browsers: map[string]*browser{}}
	defer s.close()
	err := s.run(ctx)
	r.Duration = time.Since(start)
	r.Screenshots = s.shots
	r.Steps = s.steps
	if err != nil {
		r.Err = err
		// The scenario's context may be the one that ran out: the
		// artifacts get their own time.
		actx, acancel := context.WithTimeout(context.Background(), 30*time.Second)
		r.Artifacts = s.artifacts(actx, filepath.Join(cfg.Out, slug(r.Name())))
		acancel()
		return r
	}
	r.Passed = true
	return r
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
		line := fmt.Sprintf("FLAKY %s (%.1fs): passed on attempt %d; first: %v", r.Name(), r.Duration.Seconds(), r.Attempts, r.FirstErr)
		if len(r.Artifacts) > 0 {
			line += "\n      artifacts: " + strings.Join(r.Artifacts, " ")
		}
		return line
	case r.Passed:
		return fmt.Sprintf("PASS  %s (%.1fs)", r.Name(), r.Duration.Seconds())
	}
	line := fmt.Sprintf("FAIL  %s (%.1fs): %v", r.Name(), r.Duration.Seconds(), r.Err)
	if len(r.Artifacts) > 0 {
		line += "\n      artifacts: " + strings.Join(r.Artifacts, " ")
	}
	return line
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
			tc.SystemOut = attachments(r.Artifacts)
		case !r.Passed:
			tc.Failure = &failure{Message: firstLine(r.Err.Error()), Text: r.Err.Error()}
			tc.SystemOut = attachments(r.Artifacts)
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
