package pluginhost

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

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
