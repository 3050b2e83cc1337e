package sdktest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk/host"
	"github.com/banmen/banmen/sdk/internal/wire"
)

// BuildPlugin builds the main package at pkg (an import path such as
// "github.com/banmen/banmen/plugins/shogi") into a temporary directory and
// returns the binary's path. It uses the go command on PATH.
func BuildPlugin(t testing.TB, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("build %s: %v", pkg, err)
	}
	return bin
}

// RunPlugin starts the plugin executable at path (built from any module, in
// any language: a script with a #! line will do) as the host would (go-plugin's
// gRPC for the handshake, Suggest and Perft; the plugin's channel for the
// quick calls) and runs the conformance suite against every variant it
// serves, so the contract is checked across the process boundary too: state
// bytes, views and rule errors must survive the wire unchanged.
func RunPlugin(t *testing.T, path string, c Config) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := host.Launch(ctx, host.LaunchConfig{Cmd: exec.Command(path)})
	if err != nil {
		t.Fatalf("launch %s: %v", path, err)
	}
	t.Cleanup(conn.Kill)
	if !conn.Channel() && !c.GRPCOnly {
		t.Errorf("%s offers no channel: the host would make every call over gRPC (see the plugin's log)", path)
	}
	c.pids = append(c.pids, conn.PID())
	for _, d := range conn.Descriptions() {
		t.Run(d.ID, func(t *testing.T) {
			RunWith(t, host.Remote{Conn: conn, ID: d.ID}, c)
		})
	}
}

// Main lets a plugin's test binary be the plugin itself: call it from the
// plugin's TestMain with the plugin's main. Started by the host's handshake
// (as RunSelf does), the binary serves the plugin; otherwise it runs the
// tests. So the suite runs across the process boundary with no extra build.
func Main(m *testing.M, serve func()) {
	if os.Getenv(wire.Handshake.MagicCookieKey) == wire.Handshake.MagicCookieValue {
		serve()
		return
	}
	os.Exit(m.Run())
}

// RunSelf runs the conformance suite through the plugin process that the
// running test binary becomes (see Main).
func RunSelf(t *testing.T, c Config) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	RunPlugin(t, exe, c)
}
