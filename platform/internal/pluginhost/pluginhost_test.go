//go:build unix

package pluginhost

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk/host"
)

// TestHealthCheckSparesBusyPlugin: a plugin that answered a call since the
// last health check is alive and is not pinged, so a ping that cannot come
// back in time (here a 1 ns timeout; under load, a long queue) does not get
// a working plugin killed with every call in flight. An idle plugin that
// does not answer the ping is still replaced.
func TestHealthCheckSparesBusyPlugin(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "tictactoe"),
		"github.com/banmen/banmen/sdk/examples/tictactoe/cmd/tictactoe").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	restarts := 0
	h, err := Start(context.Background(), Config{Dir: dir, HealthTimeout: time.Nanosecond, OnRestart: func(string) { restarts++ }})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	pid := h.PIDs()["tictactoe"]
	call := func() {
		t.Helper()
		err := h.Call(context.Background(), "tictactoe", "start", func(ctx context.Context, c *host.Conn) error {
			_, _, err := c.Start(ctx, host.StartRequest{Variant: "tictactoe"})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		call()
		h.checkHealth()
		if got := h.PIDs()["tictactoe"]; got != pid || restarts != 0 {
			t.Fatalf("a plugin answering calls was replaced by the health check (pid %d → %d, %d restarts)", pid, got, restarts)
		}
	}
	// No call since the last check: pinged, and the ping times out. The
	// plugin is stopped so that it cannot answer within the nanosecond
	// (a quick answer could win the race against the timer).
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// The signal takes effect when the process next runs: on a busy
	// machine it may still be on a run queue, which the judgement would
	// rightly count as busy. Judge it once the kernel says it is stopped.
	waitStopped(t, pid)
	h.checkHealth()
	if got := h.PIDs()["tictactoe"]; got == pid || restarts != 1 {
		t.Fatalf("an idle plugin that failed its ping was not replaced (pid %d → %d, %d restarts)", pid, got, restarts)
	}
}

// waitStopped returns once /proc says every thread of pid is stopped
// (state T): kill(2) returns before the SIGSTOP has reached them all.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	stopped := func() bool {
		tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
		if err != nil || len(tasks) == 0 {
			return false
		}
		for _, f := range tasks {
			b, err := os.ReadFile(f)
			// The state follows the command's closing parenthesis.
			if i := bytes.LastIndexByte(b, ')'); err != nil || i < 0 || i+2 >= len(b) || b[i+2] != 'T' {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(time.Minute); !stopped(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d was sent SIGSTOP a minute ago and is not stopped", pid)
		}
	}
}
