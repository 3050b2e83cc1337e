package harness_test

import (
	"context"
	"os"
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
