package host_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk/host"
	"github.com/banmen/banmen/sdk/sdktest"
)

// The contract holds across the process boundary: tic-tac-toe served by a
// real plugin process passes the same suite it passes in-process, its quick
// calls on the multiplexed lane (RunPlugin insists on the channel).
func TestConformanceThroughPluginProcess(t *testing.T) {
	bin := sdktest.BuildPlugin(t, "github.com/banmen/banmen/sdk/examples/tictactoe/cmd/tictactoe")
	sdktest.RunPlugin(t, bin, sdktest.Config{})
}

// The same suite with every call over gRPC: the path a plugin without a
// channel gets, and the one Suggest and Perft always take.
func TestConformanceOverGRPCOnly(t *testing.T) {
	bin := sdktest.BuildPlugin(t, "github.com/banmen/banmen/sdk/examples/tictactoe/cmd/tictactoe")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := host.Launch(ctx, host.LaunchConfig{Cmd: exec.Command(bin), GRPCOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Kill()
	if conn.Channel() {
		t.Fatal("GRPCOnly still uses the channel")
	}
	sdktest.RunWith(t, host.Remote{Conn: conn, ID: "tictactoe"}, sdktest.Config{})
}
