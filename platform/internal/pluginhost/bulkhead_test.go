//go:build linux

package pluginhost

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
)

// startFaulty starts a host serving the faulty test plugin.
func startFaulty(t *testing.T, cfg Config) (*Host, *atomic.Int32) {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "faulty"),
		"github.com/banmen/banmen/platform/internal/pluginhost/testdata/faulty").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	restarts := &atomic.Int32{}
	cfg.Dir = dir
	cfg.OnRestart = func(string) { restarts.Add(1) }
	h, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h, restarts
}

// play plays move in a new game of faulty with ctx, and reports the PID of
// the process that answered the start.
func play(ctx context.Context, h *Host, move sdk.Move) (pid int, err error) {
	err = h.Call(ctx, "faulty", "play", func(ctx context.Context, c *host.Conn) error {
		pid = c.PID()
		st, _, err := c.Start(ctx, host.StartRequest{Variant: "faulty"})
		if err != nil {
			return err
		}
		_, _, err = c.Play(ctx, host.PlayRequest{Variant: "faulty", State: st, Seat: 0, Move: move})
		return err
	})
	return pid, err
}

// TestBulkheads: the calls of class API run in a process of their own,
// which admits APIInFlight calls at once and refuses more at once with a
// *BusyError; a room's call meanwhile is served by the rooms' process.
func TestBulkheads(t *testing.T) {
	h, restarts := startFaulty(t, Config{APIInFlight: 1, CallTimeout: 30 * time.Second})
	api := WithClass(context.Background(), API)
	roomPID, err := play(context.Background(), h, "b2")
	if err != nil {
		t.Fatal(err)
	}
	apiPID, err := play(api, h, "b2")
	if err != nil {
		t.Fatal(err)
	}
	if roomPID == apiPID {
		t.Fatalf("rooms and the API share process %d", roomPID)
	}
	for _, n := range threadNices(t, roomPID) {
		if n != 0 {
			t.Errorf("a thread of the rooms' process has niceness %d, want 0", n)
		}
	}
	for _, n := range threadNices(t, apiPID) {
		if n != niceAPI {
			t.Errorf("a thread of the API's process has niceness %d, want %d", n, niceAPI)
		}
	}
	if g, err := os.ReadFile("/proc/" + strconv.Itoa(apiPID) + "/autogroup"); err == nil && !strings.HasSuffix(strings.TrimSpace(string(g)), " nice "+strconv.Itoa(niceAPI)) {
		t.Errorf("the API process's session group: %q, want nice %d", g, niceAPI)
	}
	// One API call in flight (a slow move), then another: refused.
	done := make(chan error, 1)
	go func() { _, err := play(api, h, "slow:b2"); done <- err }()
	ap := h.apis["faulty"]
	for ap.inflight.Load() == 0 {
		select {
		case err := <-done:
			t.Fatalf("the slow call ended first: %v", err)
		default:
			time.Sleep(time.Millisecond)
		}
	}
	if _, _, err := h.Admit(context.Background(), "faulty", "play"); !errors.As(err, new(*BusyError)) {
		t.Errorf("Admit while the API process holds its one call: %v, want *BusyError", err)
	}
	_, err = play(api, h, "b2")
	var busy *BusyError
	if !errors.As(err, &busy) {
		t.Errorf("a second API call while one is in flight: %v, want *BusyError", err)
	}
	if _, err := play(context.Background(), h, "b2"); err != nil {
		t.Errorf("a room's call while the API is full: %v", err)
	}
	if err := <-done; err != nil {
		t.Errorf("the slow API call: %v", err)
	}
	// A request admitted holds the one place: its own call runs in it,
	// another is refused, and the place is free again once released.
	actx, release, err := h.Admit(context.Background(), "faulty", "play")
	if err != nil {
		t.Fatalf("Admit with no call in flight: %v", err)
	}
	if _, err := play(api, h, "b2"); !errors.As(err, new(*BusyError)) {
		t.Errorf("an API call while a request holds the place: %v, want *BusyError", err)
	}
	if _, err := play(WithClass(actx, API), h, "b2"); err != nil {
		t.Errorf("the admitted request's call: %v", err)
	}
	release()
	release() // twice is once
	if _, err := play(api, h, "b2"); err != nil {
		t.Errorf("an API call after the release: %v", err)
	}
	if n := restarts.Load(); n != 0 {
		t.Errorf("%d restarts", n)
	}
}

// threadNices are the niceness of each thread of process pid
// (/proc/pid/task/tid/stat, field 19): on Linux a niceness is a thread's.
func threadNices(t *testing.T, pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, task := range tasks {
		b, err := os.ReadFile(dir + "/" + task.Name() + "/stat")
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		n, _ := strconv.Atoi(f[16])
		out = append(out, n)
	}
	return out
}

// TestBusyIsNotHung: a plugin that cannot answer its health check in time
// (here a 1 ns timeout) because it is busy computing is not killed: its
// CPU time grows. One that is stopped still is (TestHealthCheckSparesBusyPlugin).
func TestBusyIsNotHung(t *testing.T) {
	h, restarts := startFaulty(t, Config{HealthTimeout: time.Nanosecond, CallTimeout: 30 * time.Second})
	pid := h.PIDs()["faulty"]
	before := cpuTime(pid)
	done := make(chan error, 1)
	go func() { _, err := play(context.Background(), h, "spin:1500"); done <- err }()
	// Wait until the plugin is computing (its CPU time grows).
	for cpuTime(pid) < before+5 {
		time.Sleep(10 * time.Millisecond)
	}
	if h.checkHealth(); h.PIDs()["faulty"] != pid || restarts.Load() != 0 {
		t.Fatalf("a busy plugin was replaced by the health check")
	}
	err := <-done
	if re, ok := sdk.AsRuleError(err); !ok || re.Code != "spun" {
		t.Fatalf("the busy call: %v, want its answer", err)
	}
	if h.PIDs()["faulty"] != pid || restarts.Load() != 0 {
		t.Errorf("a busy plugin was replaced (pid %d → %d, %d restarts)", pid, h.PIDs()["faulty"], restarts.Load())
	}
}

// TestActivityProgressed: CPU time or a run-queue wait of a few
// milliseconds is progress (busy, or starved of CPU); a thread's wake-up
// is not, nor is nothing.
func TestActivityProgressed(t *testing.T) {
	base := activity{cpu: 100, waited: 1_000_000}
	for _, c := range []struct {
		name string
		a    activity
		want bool
	}{
		{"nothing", base, false},
		{"used CPU", activity{cpu: 101, waited: base.waited}, true},
		{"starved: waited to run", activity{cpu: 100, waited: base.waited + 50_000_000}, true},
		{"a wake-up", activity{cpu: 100, waited: base.waited + 20_000}, false},
		{"no schedstat", activity{cpu: 100, waited: -1}, false},
	} {
		if got := c.a.progressed(base); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if a, ok := activityOf(os.Getpid()); !ok || a.cpu < 0 {
		t.Errorf("this process's activity: %+v, %v", a, ok)
	}
}

// TestHostNice: Config.Nice lowers every process of the host, its rules
// process included (the analyses' host), each thread and its own session's
// group.
func TestHostNice(t *testing.T) {
	h, _ := startFaulty(t, Config{Nice: 3, CallTimeout: 30 * time.Second})
	pid, err := play(context.Background(), h, "b2")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range threadNices(t, pid) {
		if n != 3 {
			t.Errorf("a thread of the rules process has niceness %d, want 3", n)
		}
	}
	if g, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/autogroup"); err == nil && !strings.HasSuffix(strings.TrimSpace(string(g)), " nice 3") {
		t.Errorf("the rules process's session group: %q, want nice 3", g)
	}
}
