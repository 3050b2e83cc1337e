// Command harness plays scenario files in headless Chromium against a Banmen
// site and reports, per scenario, whether it passed:
//
//	harness run [-base URL] [-bin DIR] [-browser PATH] [-parallel N] [-junit FILE] [-out DIR] [-step_timeout D] scenarios...
//
// Scenarios are files, directories (every *.yaml inside) or glob patterns.
//
// Without -base it starts a host itself, on a free port with a temporary data
// directory, from the binaries in -bin (default $BANMEN_BIN, else it builds
// them). It prints a line per scenario and "N passed, N failed"; it exits 1
// when a scenario failed and 2 when the run could not start. `make build`
// builds it into bin/harness. Run with no arguments, it prints every flag.
//
//	harness game -variant ID [-seed N] [-strong SEAT] [-level L] [-think D] [-max N] [-base URL] [-bin DIR]
//
// prints the moves of a whole game, for a new scenario.
//
//	harness conformance -variant ID [-games N] [-plies N] [-seed N] [-plugin_dir DIR] [-base URL]
//
// plays random legal games of a variant through the real board (the
// browser conformance check). See docs/harness.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/banmen/banmen/harness"
	"github.com/banmen/banmen/harness/chromium"
	"github.com/banmen/banmen/platform/hosttest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil && !errors.Is(err, errFailed) {
		fmt.Fprintln(os.Stderr, "harness:", err)
	}
	os.Exit(exitCode(err))
}

// exitCode is 0 when every scenario passed, 1 when one failed, 2 when the
// run could not start (usage, scenario files, browser, site).
func exitCode(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errFailed):
		return 1
	}
	return 2
}

var errFailed = errors.New("scenarios failed")

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "game" {
		return game(ctx, args[1:], getenv, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "conformance" {
		return conformance(ctx, args[1:], getenv, stdout, stderr)
	}
	if len(args) == 0 || args[0] != "run" {
		usage(stderr, getenv)
		return errors.New("no command")
	}
	fs, f := runFlags(getenv)
	fs.SetOutput(stderr)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	return runScenarios(ctx, fs, f, getenv, stdout)
}

// usage prints both commands with every flag, from the flag sets themselves
// so no flag goes unmentioned.
func usage(w io.Writer, getenv func(string) string) {
	fmt.Fprintln(w, "usage: harness run [flags] scenarios...   (play scenario files, directories, glob patterns)")
	rfs, _ := runFlags(getenv)
	rfs.SetOutput(w)
	rfs.PrintDefaults()
	fmt.Fprintln(w, "\n       harness game -variant ID [flags]   (the moves of a whole game, for a new scenario)")
	gfs, _ := gameFlags(getenv)
	gfs.SetOutput(w)
	gfs.PrintDefaults()
	fmt.Fprintln(w, "\n       harness conformance -variant ID [flags]   (random legal games through the real board: the browser conformance check)")
	cfs, _ := conformanceFlags(getenv)
	cfs.SetOutput(w)
	cfs.PrintDefaults()
}

// timeoutScaleFlag is -timeout-scale, by default $BANMEN_TIMEOUT_SCALE.
func timeoutScaleFlag(fs *flag.FlagSet, getenv func(string) string) *float64 {
	def := 1.0
	if v, err := strconv.ParseFloat(getenv("BANMEN_TIMEOUT_SCALE"), 64); err == nil && v > 0 {
		def = v
	}
	return fs.Float64("timeout-scale", def, "multiply every limit (scenario and step timeouts, screenshots, browser start) by F on a slow machine (default $BANMEN_TIMEOUT_SCALE, else 1)")
}

type runOpts struct {
	base, browser, firefox, webkit, engine, junit, html, out, bin *string
	parallel, retries                                             *int
	step                                                          *time.Duration
	scale                                                         *float64
	headed, pause                                                 *bool
	slowmo                                                        *time.Duration
}

func runFlags(getenv func(string) string) (*flag.FlagSet, runOpts) {
	fs := flag.NewFlagSet("harness run", flag.ContinueOnError)
	var o runOpts
	o.base = fs.String("base", "", "the site to test; empty starts a host")
	o.browser = fs.String("browser", "", "the Chromium binary (default: $BANMEN_CHROMIUM, else chromium, chromium-browser or google-chrome on PATH, else /usr/bin/chromium)")
	o.firefox = fs.String("firefox", "", "the Firefox binary (default: $BANMEN_FIREFOX, else firefox-esr or firefox on PATH, else /usr/bin/firefox-esr)")
	o.webkit = fs.String("webkit", "", "the WebKitWebDriver binary (default: $BANMEN_WEBKIT, else WebKitWebDriver on PATH); WebKitGTK also needs Xvfb")
	o.engine = fs.String("engine", "chromium", "the browser engines to play every scenario in, comma-separated: "+strings.Join(harness.EngineNames(), ", ")+" (an actor's own browser wins)")
	o.parallel = fs.Int("parallel", 2, "scenarios at once")
	o.junit = fs.String("junit", "harness-report.xml", "the JUnit XML report to write (empty: none)")
	o.html = fs.String("html", "harness-report.html", "the HTML report to write: every scenario, its steps and times, screenshots inline (empty: none)")
	o.retries = fs.Int("retries", 0, "play a failed scenario up to N more times; one that passes on a retry is reported flaky")
	o.out = fs.String("out", "harness-out", "where failure screenshots and consoles go")
	o.bin = fs.String("bin", getenv("BANMEN_BIN"), "the built host and plugins, for a host the harness starts (empty: build them)")
	o.step = fs.Duration("step_timeout", 10*time.Second, "the longest wait of one step")
	o.scale = timeoutScaleFlag(fs, getenv)
	o.headed = fs.Bool("headed", false, "show the browsers on the display ($DISPLAY) instead of headless (WebKit: on $DISPLAY rather than an Xvfb of its own)")
	o.slowmo = fs.Duration("slowmo", 0, "pause this long before every input and page load, to follow a scenario by eye")
	o.pause = fs.Bool("pause-on-failure", false, "keep a failed scenario's browsers open, print how to attach to each, and wait for Ctrl-C")
	return fs, o
}

func runScenarios(ctx context.Context, fs *flag.FlagSet, o runOpts, getenv func(string) string, stdout io.Writer) error {
	base, browser, parallel, junit, out, bin, step := o.base, o.browser, o.parallel, o.junit, o.out, o.bin, o.step
	if fs.NArg() == 0 {
		return errors.New("no scenario files")
	}
	scs, err := harness.LoadAll(fs.Args()...)
	if err != nil {
		return err
	}
	engines := strings.Split(*o.engine, ",")
	// The browsers are looked for before a host is started: a missing
	// one is a setup error, said once.
	var exe, ff string
	if *browser != "" || slices.Contains(engines, "chromium") || needs(scs, "chromium") {
		if exe, err = chromium.Find(*browser, getenv); err != nil {
			return err
		}
	}
	if *o.firefox != "" || slices.Contains(engines, "firefox") || needs(scs, "firefox") {
		if ff, err = harness.FindFirefox(*o.firefox, getenv); err != nil {
			return err
		}
	}
	var wk string
	if *o.webkit != "" || slices.Contains(engines, "webkit") || needs(scs, "webkit") {
		if wk, err = harness.FindWebKit(*o.webkit, getenv); err != nil {
			return err
		}
	}
	var host *hosttest.Host
	var hostLog string
	if *base == "" {
		h, err := hosttest.Start(ctx, *bin)
		if err != nil {
			return err
		}
		defer h.Stop()
		host = h
		hostLog = h.LogPath()
		*base = h.URL
		fmt.Fprintf(stdout, "started a host on %s\n", h.URL)
	}
	sum, err := harness.Run(ctx, harness.Config{
		Base: *base, Chromium: exe, Firefox: ff, WebKit: wk, Engines: engines, Parallel: *parallel, Out: *out, StepTimeout: *step, Log: stdout, Retries: *o.retries,
		TimeoutScale: *o.scale, HostLog: hostLog,
		Headed: *o.headed, SlowMo: *o.slowmo, PauseOnFailure: *o.pause,
	}, scs)
	if err != nil {
		return err
	}
	if err := writeReport(*junit, sum.WriteJUnit); err != nil {
		return err
	}
	if err := writeReport(*o.html, sum.WriteHTML); err != nil {
		return err
	}
	fmt.Fprintln(stdout, sum.Line())
	if _, failed, _ := sum.Counts(); failed > 0 {
		if host != nil {
			// The host's data directory goes with it; its log is
			// evidence.
			if b, err := os.ReadFile(host.LogPath()); err == nil && os.MkdirAll(*out, 0o755) == nil {
				p := filepath.Join(*out, "host.log")
				if os.WriteFile(p, b, 0o644) == nil {
					fmt.Fprintf(stdout, "host log: %s\n", p)
				}
			}
		}
		return errFailed
	}
	return nil
}

// writeReport writes a report to path, unless path is empty.
func writeReport(path string, write func(io.Writer) error) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// needs tells whether an actor of the scenarios names the engine.
func needs(scs []*harness.Scenario, engine string) bool {
	for _, sc := range scs {
		for _, a := range sc.Actors {
			if a.Browser == engine {
				return true
			}
		}
	}
	return false
}
