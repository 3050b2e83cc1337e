package outside_test

import (
	"context"
	"os"
	"testing"

	"github.com/banmen/banmen/harness"
	"github.com/banmen/banmen/platform/hosttest"
)

// TestBanmen plays this module's own scenarios against the site at
// $OUTSIDE_BASE, as docs/harness.md shows.
func TestBanmen(t *testing.T) {
	base := os.Getenv("OUTSIDE_BASE")
	if base == "" {
		t.Fatal("OUTSIDE_BASE names the site to test")
	}
	scs, err := harness.LoadAll("testdata/scenarios") // your own *.yaml
	if err != nil {
		t.Fatal(err)
	}
	// The browsers, kept from one scenario to the next (each actor still
	// gets its own isolated profile), and ended once every subtest is done.
	browsers := harness.NewBrowsers()
	t.Cleanup(browsers.Close)
	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			sum, err := harness.Run(t.Context(), harness.Config{
				Base:     base,
				Engines:  []string{"chromium"},
				Out:      t.TempDir(),
				Browsers: browsers,
			}, []*harness.Scenario{sc})
			if err != nil {
				t.Fatal(err) // a SetupError: no browser, or the site is down
			}
			for _, r := range sum.Results {
				if !r.Passed && !r.Skipped {
					t.Errorf("%s: %v (artifacts %v)", r.Name(), r.Err, r.Artifacts)
				}
			}
		})
	}
}

// The host starters build, the deprecated one included: code written
// against the harness's first API still compiles.
var (
	_ func(context.Context, string) (*hosttest.Host, error) = hosttest.Start
	_ func(context.Context, string) (*harness.Host, error)  = harness.StartHost
)
