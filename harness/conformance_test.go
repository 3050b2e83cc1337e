package harness_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/banmen/banmen/harness"
	"github.com/banmen/banmen/platform/hosttest"
)

// TestConformance plays random games of the tic-tac-toe template, whose
// marks are drops from an unlimited supply, and of shogi (board moves,
// promotions, drops from hands) through the real board, on a host that
// shows them.
func TestConformance(t *testing.T) {
	browser := findBrowser(t)
	if testing.Short() {
		t.Skip("the browser suite is long; -short skips it")
	}
	h, err := hosttest.StartWith(context.Background(), os.Getenv("BANMEN_BIN"), "-variants", "tictactoe,shogi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	for _, c := range []harness.Conformance{
		{Variant: "tictactoe", Games: 4, Seed: 1},
		{Variant: "shogi", Games: 2, Seed: 2, MaxPlies: 24, Lang: "ja"},
	} {
		t.Run(c.Variant, func(t *testing.T) {
			t.Parallel()
			r := harness.CheckConformance(t.Context(), harness.Config{Base: h.URL, Chromium: browser, Out: t.TempDir()}, c)
			if !r.Passed {
				t.Fatalf("%v\nartifacts: %s", r.Err, strings.Join(r.Artifacts, " "))
			}
			t.Logf("%d games in %.1fs", c.Games, r.Duration.Seconds())
		})
	}
}

// TestConformanceTwoKinds plays wild tic-tac-toe (harness/testdata/wild),
// where every empty cell takes an X or an O from the supply: the board asks
// which, and the check answers for the kind it chose; a player may pass, an
// action the check presses as its button.
func TestConformanceTwoKinds(t *testing.T) {
	browser := findBrowser(t)
	if testing.Short() {
		t.Skip("the browser suite is long; -short skips it")
	}
	plugins := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(plugins, "wild"), "./testdata/wild").CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/wild: %v\n%s", err, out)
	}
	h, err := hosttest.StartWith(context.Background(), os.Getenv("BANMEN_BIN"), "-plugin_dir", plugins, "-variants", "wild")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	var log strings.Builder
	r := harness.CheckConformance(t.Context(), harness.Config{Base: h.URL, Chromium: browser, Out: t.TempDir(), Log: &log},
		harness.Conformance{Variant: "wild", Games: 2, Seed: 4})
	t.Log(log.String())
	if !r.Passed {
		t.Fatalf("%v\nartifacts: %s", r.Err, strings.Join(r.Artifacts, " "))
	}
	// The seed is one whose games pass (an action, pressed as its button).
	if !strings.Contains(log.String(), " 1 actions") {
		t.Errorf("no game played an action: %s", log.String())
	}
}
