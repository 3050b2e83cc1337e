package extengine_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk/extengine"
	"github.com/banmen/banmen/sdk/extengine/fsftest"
)

// fsf is Fairy-Stockfish: the test skips when it is not installed (fails
// with BANMEN_REQUIRE_FSF=1) and fails when it is installed but broken.
func fsf(t *testing.T) string { return fsftest.Path(t) }

func TestShogiUSI(t *testing.T) {
	e := extengine.New(extengine.Config{Command: fsf(t), Protocol: extengine.USI})
	defer e.Close()
	m, err := e.BestMove(context.Background(), "startpos moves 7g7f", extengine.Limit{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) < 4 {
		t.Errorf("move %q", m)
	}
	// Gote mated: 1-ply mate position with no legal move for the side to move.
	if _, err := e.BestMove(context.Background(), "sfen 4k4/4G4/4G4/9/9/9/9/9/4K4 w - 1", extengine.Limit{Depth: 2}); err != extengine.ErrNoMove {
		t.Errorf("mated side: err = %v, want extengine.ErrNoMove", err)
	}
}

func TestXiangqiUCCI(t *testing.T) {
	e := extengine.New(extengine.Config{Command: fsf(t), Protocol: extengine.UCCI})
	defer e.Close()
	m, err := e.BestMove(context.Background(), "startpos moves h2e2", extengine.Limit{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 4 || m[1] < '0' || m[1] > '9' {
		t.Errorf("move %q is not extengine.UCCI", m)
	}
}

// A dead engine is restarted and the search still answers.
func TestRestartsAfterDeath(t *testing.T) {
	e := extengine.New(extengine.Config{Command: fsf(t), Protocol: extengine.USI})
	defer e.Close()
	if _, err := e.BestMove(context.Background(), "startpos", extengine.Limit{Depth: 1}); err != nil {
		t.Fatal(err)
	}
	// The next call meets the dead process, whenever it is noticed (a
	// failed write or a closed output), and starts another.
	_ = syscall.Kill(e.PID(), syscall.SIGKILL)
	if _, err := e.BestMove(context.Background(), "startpos", extengine.Limit{Depth: 1}); err != nil {
		t.Fatalf("after kill: %v", err)
	}
	if e.Spawn != 2 {
		t.Errorf("spawned %d processes, want 2", e.Spawn)
	}
}

// The caller's deadline wins over a long search.
func TestDeadline(t *testing.T) {
	e := extengine.New(extengine.Config{Command: fsf(t), Protocol: extengine.USI})
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	// It returns because the deadline passed, and the engine, mid-search,
	// was killed: nothing waits for the depth-60 search.
	if _, err := e.BestMove(ctx, "startpos", extengine.Limit{Depth: 60}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a depth-60 search with a 300 ms deadline: %v, want the deadline's error", err)
	}
	if pid := e.PID(); pid != 0 {
		t.Errorf("the engine (pid %d) still runs after the deadline", pid)
	}
	if _, err := e.BestMove(context.Background(), "startpos", extengine.Limit{Depth: 1}); err != nil {
		t.Errorf("next search: %v", err)
	}
}

func TestMissingEngine(t *testing.T) {
	e := extengine.New(extengine.Config{Command: "/nonexistent/engine", Protocol: extengine.USI})
	if _, err := e.BestMove(context.Background(), "startpos", extengine.Limit{Depth: 1}); err == nil {
		t.Error("no error for a missing engine")
	}
}

// Perft counts agree with the published ones (shared/testdata/perft.md).
func TestPerft(t *testing.T) {
	for _, c := range []struct {
		proto    extengine.Protocol
		position string
		depth    int
		want     uint64
	}{
		{extengine.USI, "startpos", 3, 25470},
		{extengine.UCCI, "startpos", 3, 79666},
	} {
		e := extengine.New(extengine.Config{Command: fsf(t), Protocol: c.proto})
		n, el, err := e.Perft(context.Background(), c.position, c.depth)
		e.Close()
		if err != nil || n != c.want || el <= 0 {
			t.Errorf("%s perft %d: %d in %v, %v; want %d", c.proto, c.depth, n, el, err, c.want)
		}
	}
}
