package harness_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/banmen/banmen/harness"
	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/platform/hosttest"
	"github.com/banmen/banmen/sdk"
)

// TestOutOfTreeExample builds sdk/examples/connect4, a module of its own
// that depends on the sdk module only, into a temporary plugin directory,
// starts the host on that directory as an author would (variants:
// connect4), and checks what the game brings through the contract: its
// landing page in English and in German from its own texts (and in Italian,
// which it does not ship, in English saying so), its card picture, a full
// game through the HTTP API, and random games in the browser (the
// conformance check).
func TestOutOfTreeExample(t *testing.T) {
	browser := findBrowser(t)
	if testing.Short() {
		t.Skip("the browser suite is long; -short skips it")
	}
	plugins := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(plugins, "connect4"), "./cmd/connect4")
	build.Dir = filepath.Join("..", "sdk", "examples", "connect4")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build in %s: %v\n%s", build.Dir, err, out)
	}
	h, err := hosttest.StartWith(context.Background(), os.Getenv("BANMEN_BIN"), "-plugin_dir", plugins, "-variants", "connect4")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	get := func(path string) (int, string, http.Header) {
		t.Helper()
		res, err := http.Get(h.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b), res.Header
	}
	for _, tc := range []struct {
		path          string
		want, notWant []string
	}{
		{"/en/", []string{"Connect Four", "Drop discs into seven columns", `src="/api/v1/variants/connect4/card.svg"`}, []string{"variant.connect4", "Shogi"}},
		{"/en/connect4/", []string{"<title>Connect Four — play in your browser</title>", "line up four discs of your colour", "How do I drop a disc?", "Same device"}, []string{"landing.connect4", "variant-english"}},
		{"/de/connect4/", []string{"<title>Vier gewinnt — im Browser spielen</title>", "Bring vier Steine deiner Farbe", "Wie werfe ich einen Stein ein?", "Ein Gerät"}, []string{"landing.connect4", "variant-english", "line up four"}},
		{"/it/connect4/", []string{"line up four discs of your colour", "variant-english", "Stesso dispositivo"}, []string{"landing.connect4"}},
		{"/de/connect4/play?mode=local", []string{`"seat.connect4.red":"Rot"`, `"result.connect4.four":"vier in einer Reihe"`, `"drawing":[`}, []string{`"texts"`, `"card"`}},
	} {
		status, body, _ := get(tc.path)
		if status != 200 {
			t.Errorf("GET %s: %d", tc.path, status)
		}
		for _, s := range tc.want {
			if !strings.Contains(body, s) {
				t.Errorf("GET %s lacks %q", tc.path, s)
			}
		}
		for _, s := range tc.notWant {
			if strings.Contains(body, s) {
				t.Errorf("GET %s has %q", tc.path, s)
			}
		}
	}
	status, card, hdr := get("/api/v1/variants/connect4/card.svg")
	if status != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "image/svg+xml") || !strings.HasPrefix(card, "<svg ") || strings.Contains(card, "<?xml") {
		t.Errorf("card picture: %d %q %.60q", status, hdr.Get("Content-Type"), card)
	}

	// A whole game through the API: Red fills column a, Yellow column b,
	// until Red's fourth disc in a wins.
	ctx := t.Context()
	c := client.New(h.URL, nil)
	g, err := c.Start(ctx, "connect4", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []sdk.Move{"a", "b", "a", "b", "a", "b", "a"} {
		if g, err = c.Play(ctx, "connect4", g.State, sdk.Seat(i%2), m); err != nil {
			t.Fatalf("move %d %s: %v", i+1, m, err)
		}
	}
	if r := g.View.Result; g.View.Status != sdk.Over || r == nil || len(r.Winners) != 1 || r.Winners[0] != 0 || r.Reason != "result.connect4.four" {
		t.Errorf("after a a a a: status %s, result %+v", g.View.Status, r)
	}
	if _, err := c.Play(ctx, "connect4", g.State, 1, "c"); err == nil || !strings.Contains(err.Error(), "game_over") {
		t.Errorf("a move after the end: %v", err)
	}

	r := harness.CheckConformance(ctx, harness.Config{Base: h.URL, Chromium: browser, Out: t.TempDir()},
		harness.Conformance{Variant: "connect4", Games: 2, Seed: 3, MaxPlies: 42, Lang: "de"})
	if !r.Passed {
		t.Fatalf("browser conformance: %v\nartifacts: %s", r.Err, strings.Join(r.Artifacts, " "))
	}
	t.Logf("browser conformance: 2 games in %.1fs", r.Duration.Seconds())
}

// TestNodeExample serves the TypeScript plugin of sdk/examples/morris-ts
// (Node, gRPC only) like any other variant and plays it in the browser: its
// men are dropped from a supply, then moved on the board. It needs Node and
// the built plugin (make node); without them it skips, unless
// BANMEN_REQUIRE_NODE=1, where it fails.
func TestNodeExample(t *testing.T) {
	browser := findBrowser(t)
	if testing.Short() {
		t.Skip("the browser suite is long; -short skips it")
	}
	need := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("BANMEN_REQUIRE_NODE") == "1" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		need("no node on PATH: %v", err)
	}
	main, err := filepath.Abs(filepath.Join("..", "sdk", "examples", "morris-ts", "dist", "main.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(main); err != nil {
		need("the Node plugin is not built (make node): %v", err)
	}
	plugins := t.TempDir()
	if err := os.WriteFile(filepath.Join(plugins, "morris"), []byte("#!/bin/sh\nexec "+node+" "+main+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := hosttest.StartWith(context.Background(), os.Getenv("BANMEN_BIN"), "-plugin_dir", plugins, "-variants", "morris")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	res, err := http.Get(h.URL + "/uk/morris/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "Млинок на трьох") {
		t.Errorf("GET /uk/morris/: %d, without its Ukrainian name", res.StatusCode)
	}
	r := harness.CheckConformance(t.Context(), harness.Config{Base: h.URL, Chromium: browser, Out: t.TempDir()},
		harness.Conformance{Variant: "morris", Games: 2, Seed: 5, MaxPlies: 40})
	if !r.Passed {
		t.Fatalf("browser conformance: %v\nartifacts: %s", r.Err, strings.Join(r.Artifacts, " "))
	}
	t.Logf("browser conformance: 2 games in %.1fs", r.Duration.Seconds())
}

// TestOutsideModule builds and runs harness/testdata/outside, a module of
// its own that uses the harness library exactly as docs/harness.md shows
// (its go.mod replaces the banmen and sdk modules with this checkout), and
// plays its scenario against the suite's host: the library's users build
// and pass, the deprecated StartHost included.
func TestOutsideModule(t *testing.T) {
	findBrowser(t)
	url := base(t)
	cmd := exec.CommandContext(t.Context(), "go", "test", "-count=1", "./...")
	cmd.Dir = filepath.Join("testdata", "outside")
	// Offline and read-only: its go.mod and go.sum must be complete.
	cmd.Env = append(os.Environ(), "OUTSIDE_BASE="+url, "GOFLAGS=-mod=readonly", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in %s: %v\n%s", cmd.Dir, err, out)
	}
	if !strings.Contains(string(out), "ok  \texample.com/outside") {
		t.Errorf("the outside module's test did not run:\n%s", out)
	}
}
