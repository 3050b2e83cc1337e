// Package morrists_test runs the sdk's conformance suite across the process
// boundary against the TypeScript plugin in this directory, started as a
// host starts it: the go-plugin handshake, gRPC only (it offers no quick
// channel). It needs Node and the built plugin (npm ci && npm run build, or
// make node); without them it skips, unless BANMEN_REQUIRE_NODE=1 (CI), where
// it fails.
package morrists_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestWireContractShipsWithTheExample: the plugin reads its own copy of the
// wire contract, which must be the sdk's.
func TestWireContractShipsWithTheExample(t *testing.T) {
	ours, err := os.ReadFile(filepath.Join("protos", "wire.proto"))
	if err != nil {
		t.Fatal(err)
	}
	sdks, err := os.ReadFile(filepath.Join("..", "..", "internal", "wire", "wire.proto"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, sdks) {
		t.Error("protos/wire.proto differs from sdk/internal/wire/wire.proto: copy it again")
	}
}

// TestStartsOnceCopiedOutOfTheTree: an author copies this folder (built)
// anywhere and starts it; it must need nothing from the sdk's tree.
func TestStartsOnceCopiedOutOfTheTree(t *testing.T) {
	launcher(t) // Node and the built plugin, or skip
	dst := filepath.Join(t.TempDir(), "morris-ts")
	if out, err := exec.Command("cp", "-r", ".", dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	cmd := exec.Command(filepath.Join(dst, "morris"), "describe")
	cmd.Env = append(os.Environ(), "BANMEN_WIRE_PROTO=")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"morris"`) {
		t.Fatalf("the copy did not start: %v\n%s", err, out)
	}
	sdktest.RunPlugin(t, filepath.Join(dst, "morris"), sdktest.Config{GRPCOnly: true})
}
