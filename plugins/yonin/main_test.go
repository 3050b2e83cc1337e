package main

import (
	"os"
	"testing"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/sdktest"
)

// TestMain lets the test binary be the plugin: started by sdk.Launch (which
// sets the handshake cookie), it runs main, the real plugin entry point.
func TestMain(m *testing.M) {
	if os.Getenv(sdk.Handshake.MagicCookieKey) == sdk.Handshake.MagicCookieValue {
		main()
		return
	}
	os.Exit(m.Run())
}

// TestConformanceThroughPlugin runs the sdk conformance suite against the
// plugin as the host sees it: a separate process behind go-plugin's gRPC.
func TestConformanceThroughPlugin(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sdktest.RunPlugin(t, exe, sdktest.Config{})
}
