package extengine

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func fsf(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"fairy-stockfish", "/usr/games/fairy-stockfish"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Skip("fairy-stockfish is not installed (apt-get install fairy-stockfish); .ci/run installs it")
	return ""
}

func TestShogiUSI(t *testing.T) {
	e := New(Config{Command: fsf(t), Protocol: USI})
	defer e.Close()
	m, err := e.BestMove(context.Background(), "startpos moves 7g7f", Limit{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) < 4 {
		t.Errorf("move %q", m)
	}
	// Gote mated: 1-ply mate position with no legal move for the side to move.
	if _, err := e.BestMove(context.Background(), "sfen 4k4/4G4/4G4/9/9/9/9/9/4K4 w - 1", Limit{Depth: 2}); err != ErrNoMove {
		t.Errorf("mated side: err = %v, want ErrNoMove", err)
	}
}

func TestXiangqiUCCI(t *testing.T) {
	e := New(Config{Command: fsf(t), Protocol: UCCI})
	defer e.Close()
	m, err := e.BestMove(context.Background(), "startpos moves h2e2", Limit{Depth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 4 || m[1] < '0' || m[1] > '9' {
		t.Errorf("move %q is not UCCI", m)
	}
}

// A dead engine is restarted and the search still answers.
func TestRestartsAfterDeath(t *testing.T) {
	e := New(Config{Command: fsf(t), Protocol: USI})
	defer e.Close()
	if _, err := e.BestMove(context.Background(), "startpos", Limit{Depth: 1}); err != nil {
		t.Fatal(err)
	}
	_ = syscall.Kill(e.PID(), syscall.SIGKILL)
	time.Sleep(50 * time.Millisecond)
	if _, err := e.BestMove(context.Background(), "startpos", Limit{Depth: 1}); err != nil {
		t.Fatalf("after kill: %v", err)
	}
	if e.Spawn != 2 {
		t.Errorf("spawned %d processes, want 2", e.Spawn)
	}
}

// The caller's deadline wins over a long search.
func TestDeadline(t *testing.T) {
	e := New(Config{Command: fsf(t), Protocol: USI})
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.BestMove(ctx, "startpos", Limit{Depth: 60})
	if err == nil {
		t.Fatal("a depth-60 search finished in 300 ms?")
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("returned after %v", el)
	}
	if _, err := e.BestMove(context.Background(), "startpos", Limit{Depth: 1}); err != nil {
		t.Errorf("next search: %v", err)
	}
}

func TestMissingEngine(t *testing.T) {
	e := New(Config{Command: "/nonexistent/engine", Protocol: USI})
	if _, err := e.BestMove(context.Background(), "startpos", Limit{Depth: 1}); err == nil {
		t.Error("no error for a missing engine")
	}
}

// Perft counts agree with the published ones (shared/testdata/perft.md).
func TestPerft(t *testing.T) {
	for _, c := range []struct {
		proto    Protocol
		position string
		depth    int
		want     uint64
	}{
		{USI, "startpos", 3, 25470},
		{UCCI, "startpos", 3, 79666},
	} {
		e := New(Config{Command: fsf(t), Protocol: c.proto})
		n, el, err := e.Perft(context.Background(), c.position, c.depth)
		e.Close()
		if err != nil || n != c.want || el <= 0 {
			t.Errorf("%s perft %d: %d in %v, %v; want %d", c.proto, c.depth, n, el, err, c.want)
		}
	}
}
