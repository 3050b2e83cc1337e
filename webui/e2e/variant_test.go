package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/banmen/banmen/platform/hosttest"
)

// TestSymlinkedPluginWithoutComputer: an author links the TypeScript example
// (no computer player, no Levels) into a plugin directory, as its README
// says. The host loads the link, and the pages offer what the variant has:
// no Vs computer on its landing page, an old Vs computer link plays on one
// device, and the Same device card says two play. It needs Node and the
// built example (make node): without them it skips, unless
// BANMEN_REQUIRE_NODE=1.
func TestSymlinkedPluginWithoutComputer(t *testing.T) {
	need := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("BANMEN_REQUIRE_NODE") == "1" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	if _, err := exec.LookPath("node"); err != nil {
		need("no node on PATH: %v", err)
	}
	example, err := filepath.Abs(filepath.Join("..", "..", "sdk", "examples", "morris-ts"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(example, "dist", "main.js")); err != nil {
		need("the TypeScript example is not built (make node): %v", err)
	}
	bin := os.Getenv("BANMEN_BIN")
	if bin == "" {
		t.Skip("needs BANMEN_BIN (make build)") // building the host here takes minutes
	}
	plugins := t.TempDir()
	if err := os.Symlink(filepath.Join(example, "morris"), filepath.Join(plugins, "morris")); err != nil {
		t.Fatal(err)
	}
	host, err := hosttest.StartWith(context.Background(), bin, "-plugin_dir", plugins, "-variants", "morris")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Stop()

	ctx := tab(t)
	do(t, ctx, chromedp.Navigate(host.URL+"/en/"))
	if got := eval[string](t, ctx, `[...document.querySelectorAll('.game-list .game-card a')].map((a) => a.pathname).join(' ')`); !strings.Contains(got, "/en/morris/") {
		t.Fatalf("the home page lists %q: the symlinked plugin was not loaded", got)
	}
	do(t, ctx, chromedp.Navigate(host.URL+"/en/morris/"))
	if n := eval[int](t, ctx, `document.querySelectorAll('.mode-computer, a[href*="mode=computer"]').length`); n != 0 {
		t.Errorf("the landing page of a variant without levels offers Vs computer (%d links)", n)
	}
	if hint := eval[string](t, ctx, `document.querySelector('.mode-local span')?.textContent ?? ''`); !strings.Contains(hint, "2 players") {
		t.Errorf("the Same device card says %q, want the variant's two players", hint)
	}
	do(t, ctx, chromedp.Navigate(host.URL+"/en/morris/play?mode=computer"))
	wait(t, ctx, `document.body.dataset.ready === 'true'`)
	if search := eval[string](t, ctx, `location.search`); search != "?mode=local" {
		t.Errorf("an old Vs computer link opened %q, want Same device", search)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#level, #level-dialog').length`); n != 0 {
		t.Error("the game page offers a difficulty for a variant without levels")
	}
}
