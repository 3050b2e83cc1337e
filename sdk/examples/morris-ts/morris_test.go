// Package morrists_test runs the sdk's conformance suite across the process
// boundary against the TypeScript plugin in this directory, started as a
// host starts it: the go-plugin handshake, gRPC only (it offers no quick
// channel). It needs Node and the built plugin (npm ci && npm run build, or
// make node); without them it skips, unless BANMEN_REQUIRE_NODE=1 (CI), where
// it fails.
package morrists_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

// launcher writes an executable that starts the plugin with Node, as a
// plugin directory holds it, and returns its path.
func launcher(t *testing.T) string {
	t.Helper()
	need := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("BANMEN_REQUIRE_NODE") == "1" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		need("no node on PATH: %v", err)
	}
	main, err := filepath.Abs(filepath.Join("dist", "main.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(main); err != nil {
		need("the plugin is not built (make node, or npm ci && npm run build here): %v", err)
	}
	p := filepath.Join(t.TempDir(), "morris")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexec "+node+" "+main+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConformanceThroughNodePlugin(t *testing.T) {
	sdktest.RunPlugin(t, launcher(t), sdktest.Config{GRPCOnly: true})
}
