package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/hosttest"
)

// binDir is $BANMEN_BIN (the Makefile sets it) or binaries built for this
// test.
func binDir(t *testing.T) string {
	if b := os.Getenv("BANMEN_BIN"); b != "" {
		return b
	}
	bin := filepath.Join(t.TempDir(), "bin")
	if err := hosttest.Build(context.Background(), bin); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestLoadSmoke keeps the load command working: four rooms for a second
// against a host it starts. Its figures are printed, not judged; the run
// must end without errors and with every client on the server's version.
func TestLoadSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	err := run(ctx, []string{"-bin", binDir(t), "-rooms", "4", "-idle", "4", "-duration", "1s", "-ref", "100ms"},
		func(string) string { return "" }, &out, &errs)
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	for _, want := range []string{"confirmed moves:", "move round trip:", "server CPU per move:", "memory per idle room:",
		"errors:              0", "4 of 4 rooms with every client on the server's version"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
}
