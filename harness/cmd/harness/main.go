// Command harness plays scenario files in headless Chromium against a Banmen
// site and reports, per scenario, whether it passed:
//
//	harness run [-base URL] [-browser PATH] [-parallel N] [-junit FILE] [-out DIR] scenarios...
//
// Scenarios are files, directories (every *.yaml inside) or glob patterns.
//
// Without -base it starts a host itself, on a free port with a temporary data
// directory, from the binaries in -bin (default $BANMEN_BIN, else it builds
// them). It prints a line per scenario and "N passed, N failed"; it exits 1
// when a scenario failed.
//
//	harness game -variant ID [-seed N] [-strong SEAT] [-base URL]
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
	if errors.Is(err, errFailed) {
		os.Exit(1)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(2)
	}
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
		fmt.Fprintln(stderr, "usage: harness run [-base URL] [-browser PATH] [-parallel N] [-junit FILE] [-out DIR] [-bin DIR] scenarios...")
		fmt.Fprintln(stderr, "       harness game -variant ID [-seed N] [-strong SEAT] [-base URL]   (the moves of a whole game, for a new scenario)")
		return errors.New("no command")
	}
	fs := flag.NewFlagSet("harness run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "", "the site to test; empty starts a host")
	browser := fs.String("browser", "", "the Chromium binary (default: $BANMEN_CHROMIUM, else chromium, chromium-browser or google-chrome on PATH, else /usr/bin/chromium)")
	parallel := fs.Int("parallel", 2, "scenarios at once")
	junit := fs.String("junit", "harness-report.xml", "the JUnit XML report to write (empty: none)")
	out := fs.String("out", "harness-out", "where failure screenshots and consoles go")
	bin := fs.String("bin", getenv("BANMEN_BIN"), "the built host and plugins, for a host the harness starts (empty: build them)")
	step := fs.Duration("step_timeout", 10*time.Second, "the longest wait of one step")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("no scenario files")
	}
	scs, err := harness.LoadAll(fs.Args()...)
	if err != nil {
		return err
	}
	exe, err := chromium.Find(*browser, getenv)
	if err != nil {
		return err
	}
	var host *hosttest.Host
	if *base == "" {
		h, err := hosttest.Start(ctx, *bin)
		if err != nil {
			return err
		}
		defer h.Stop()
		host = h
		*base = h.URL
		fmt.Fprintf(stdout, "started a host on %s\n", h.URL)
	}
	sum, err := harness.Run(ctx, harness.Config{
		Base: *base, Chromium: exe, Parallel: *parallel, Out: *out, StepTimeout: *step, Log: stdout,
	}, scs)
	if err != nil {
		return err
	}
	if *junit != "" {
		f, err := os.Create(*junit)
		if err != nil {
			return err
		}
		if err := sum.WriteJUnit(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
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
