package pluginhost

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
)

// TestSuggestRunsInAnEngineProcess: the computer's moves of a variant with
// levels go to a second process of its plugin, started by the first
// suggest call and not counted as a restart, so a search never shares the
// rules process's one scheduler thread with a player's Play. Close stops it
// too.
func TestSuggestRunsInAnEngineProcess(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "tictactoe"),
		"github.com/banmen/banmen/sdk/examples/tictactoe/cmd/tictactoe").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	restarts := 0
	h, err := Start(context.Background(), Config{Dir: dir, OnRestart: func(string) { restarts++ }})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	pidOf := func(call string) int {
		t.Helper()
		pid := 0
		err := h.Call(context.Background(), "tictactoe", call, func(ctx context.Context, c *host.Conn) error {
			pid = c.PID()
			st, _, err := c.Start(ctx, host.StartRequest{Variant: "tictactoe"})
			if err != nil || call != "suggest" {
				return err
			}
			_, err = c.Suggest(ctx, host.SuggestRequest{Variant: "tictactoe", State: st, Seat: 0, Level: sdk.Easy})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return pid
	}
	rules := pidOf("play")
	engine := pidOf("suggest")
	if engine == rules || engine == 0 {
		t.Fatalf("suggest ran in process %d, the rules in %d: want a process of its own", engine, rules)
	}
	if again := pidOf("suggest"); again != engine {
		t.Errorf("a second suggest ran in process %d, want the engine process %d", again, engine)
	}
	if restarts != 0 {
		t.Errorf("starting the engine process counted %d restarts", restarts)
	}
	if got := h.PIDs()["tictactoe"]; got != rules {
		t.Errorf("PIDs says %d, want the rules process %d", got, rules)
	}
}

// TestFirstSuggestDoesNotPayForTheEngineStart: the first computer move on a
// freshly started host, asked with a thinking time shorter than the engine
// process takes to start (here a plugin slowed by a start-up pause), still
// gets its whole thinking time: the start is not counted against it.
func TestFirstSuggestDoesNotPayForTheEngineStart(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(t.TempDir(), "tictactoe")
	if out, err := exec.Command("go", "build", "-o", bin,
		"github.com/banmen/banmen/sdk/examples/tictactoe/cmd/tictactoe").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// Every start of this plugin takes at least 400 ms.
	if err := os.WriteFile(filepath.Join(dir, "tictactoe"), []byte("#!/bin/sh\nsleep 0.4\nexec "+bin+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := Start(context.Background(), Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var st sdk.State
	if err := h.Call(context.Background(), "tictactoe", "start", func(ctx context.Context, c *host.Conn) (err error) {
		st, _, err = c.Start(ctx, host.StartRequest{Variant: "tictactoe"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// 250 ms to think, less than the engine's start.
	ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
	defer cancel()
	err = h.Call(ctx, "tictactoe", "suggest", func(ctx context.Context, c *host.Conn) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("the call began with its thinking time spent on the engine's start: %w", err)
		}
		_, err := c.Suggest(ctx, host.SuggestRequest{Variant: "tictactoe", State: st, Seat: 0, Level: sdk.Easy})
		return err
	})
	if err != nil {
		t.Fatalf("first suggest: %v", err)
	}
}

// TestSymlinkedPluginLoads: a plugin directory entry that is a symlink to
// the plugin (as the TypeScript example's README tells authors to make) is
// loaded; a broken link is skipped by name, not silently.
func TestSymlinkedPluginLoads(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tictactoe")
	if out, err := exec.Command("go", "build", "-o", bin,
		"github.com/banmen/banmen/sdk/examples/tictactoe/cmd/tictactoe").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "tictactoe")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "broken")); err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	h, err := Start(context.Background(), Config{Dir: dir, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, ok := h.Description("tictactoe"); !ok {
		t.Errorf("the symlinked plugin was not loaded; the log says:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "plugin=broken") {
		t.Errorf("the broken link is not named in the log:\n%s", logs.String())
	}
}
