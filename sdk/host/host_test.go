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
// real plugin process passes the same suite it passes in-process.
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

// The same suite over the two kinds of channel: the multiplexed lane a
// plugin of this sdk offers, and the pool of one-call connections a plugin
// built with an older sdk gets.
func TestConformanceOverEachChannel(t *testing.T) {
	bin := sdktest.BuildPlugin(t, "github.com/banmen/banmen/sdk/examples/tictactoe/cmd/tictactoe")
	for _, pool := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		conn, err := host.Launch(ctx, host.LaunchConfig{Cmd: exec.Command(bin), Pool: pool})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !conn.Channel() || conn.Multiplexed() == pool {
			conn.Kill()
			t.Fatalf("Pool %v: channel %v, multiplexed %v", pool, conn.Channel(), conn.Multiplexed())
		}
		sdktest.RunWith(t, host.Remote{Conn: conn, ID: "tictactoe"}, sdktest.Config{})
		conn.Kill()
	}
}
