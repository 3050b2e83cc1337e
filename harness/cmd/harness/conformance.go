package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/banmen/banmen/harness"
	"github.com/banmen/banmen/harness/chromium"
	"github.com/banmen/banmen/platform/hosttest"
)

type conformanceOpts struct {
	variant, lang, base, browser, bin, pluginDir, out, engine *string
	games, plies                                              *int
	seed                                                      *uint64
	scale                                                     *float64
}

func conformanceFlags(getenv func(string) string) (*flag.FlagSet, conformanceOpts) {
	fs := flag.NewFlagSet("harness conformance", flag.ContinueOnError)
	var o conformanceOpts
	o.variant = fs.String("variant", "", "the variant's ID (required)")
	o.games = fs.Int("games", 2, "random games to play")
	o.plies = fs.Int("plies", 60, "the longest game")
	o.seed = fs.Uint64("seed", 1, "the seed of the moves chosen")
	o.lang = fs.String("lang", "en", "the pages' language")
	o.base = fs.String("base", "", "the site to test; empty starts a host")
	o.browser = fs.String("browser", "", "the browser binary (as for run)")
	o.bin = fs.String("bin", getenv("BANMEN_BIN"), "the built host and plugins, for a host the harness starts (empty: build them)")
	o.pluginDir = fs.String("plugin_dir", "", "the started host's plugin directory (default: -bin's plugins)")
	o.out = fs.String("out", "harness-out", "where failure screenshots and consoles go")
	o.engine = fs.String("engine", "chromium", "the browser: "+strings.Join(harness.EngineNames(), ", "))
	o.scale = timeoutScaleFlag(fs, getenv)
	return fs, o
}

// conformance is `harness conformance -variant ID`: the browser conformance
// check of one variant (harness.CheckConformance). Without -base it starts a
// host from -bin showing that variant, with -plugin_dir for a plugin of
// one's own.
func conformance(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, o := conformanceFlags(getenv)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	variant, games, plies, seed, lang, base, browser, bin, pluginDir, out, engine := o.variant, o.games, o.plies, o.seed, o.lang, o.base, o.browser, o.bin, o.pluginDir, o.out, o.engine
	if *variant == "" {
		return errors.New("conformance: -variant is required")
	}
	cfg := harness.Config{Out: *out, TimeoutScale: *o.scale}
	var err error
	switch *engine {
	case "firefox":
		cfg.Firefox, err = harness.FindFirefox(*browser, getenv)
	case "webkit":
		cfg.WebKit, err = harness.FindWebKit(*browser, getenv)
	default:
		cfg.Chromium, err = chromium.Find(*browser, getenv)
	}
	if err != nil {
		return err
	}
	if *base == "" {
		flags := []string{"-variants", *variant}
		if *pluginDir != "" {
			flags = append(flags, "-plugin_dir", *pluginDir)
		}
		h, err := hosttest.StartWith(ctx, *bin, flags...)
		if err != nil {
			return err
		}
		defer h.Stop()
		*base = h.URL
		fmt.Fprintf(stdout, "started a host on %s\n", h.URL)
	}
	cfg.Base = *base
	r := harness.CheckConformance(ctx, cfg,
		harness.Conformance{Variant: *variant, Games: *games, MaxPlies: *plies, Seed: *seed, Lang: *lang, Engine: *engine})
	if !r.Passed {
		fmt.Fprintf(stdout, "FAIL conformance %s: %v\n", *variant, r.Err)
		if len(r.Artifacts) > 0 {
			fmt.Fprintf(stdout, "artifacts: %s\n", strings.Join(r.Artifacts, " "))
		}
		return errFailed
	}
	fmt.Fprintf(stdout, "ok conformance %s: %d games in %.1fs\n", *variant, *games, r.Duration.Seconds())
	return nil
}
