package sdk_test

import (
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

// The contract holds across the process boundary: tic-tac-toe served by a
// real plugin process passes the same suite it passes in-process.
func TestConformanceThroughPluginProcess(t *testing.T) {
	bin := sdktest.BuildPlugin(t, "github.com/banmen/banmen/sdk/examples/tictactoe/cmd/tictactoe")
	sdktest.RunPlugin(t, bin, sdktest.Config{})
}
