package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/banmen/banmen/tools/internal/pgserver"
)

// binDir is $BANMEN_BIN (the Makefile sets it) or the host and the plugins
// built for this test from the repository (slow: minutes on busy cores).
func binDir(t *testing.T) string {
	if b := os.Getenv("BANMEN_BIN"); b != "" {
		return b
	}
	bin := filepath.Join(t.TempDir(), "bin")
	root := filepath.Join("..", "..") // this package is tools/load
	build := func(out, pkg string) {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	build(filepath.Join(bin, "banmen"), "./platform/cmd/banmen")
	mains, _ := filepath.Glob(filepath.Join(root, "plugins", "*", "main.go"))
	if len(mains) == 0 {
		t.Fatalf("no plugins under %s", filepath.Join(root, "plugins"))
	}
	for _, m := range mains {
		name := filepath.Base(filepath.Dir(m))
		build(filepath.Join(bin, "plugins", name), "./plugins/"+name)
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
	for _, want := range []string{"reference:", "confirmed moves:", "move round trip:", "server CPU per move:", "memory per idle room:",
		"errors:              0", "4 of 4 rooms with every client on the server's version"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
}

// TestLoadPacedSmoke keeps -rate working: four rooms offered 40 moves/s
// in all (a move per room every 100 ms) for a second. Its figures are
// printed, not judged.
func TestLoadPacedSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	err := run(ctx, []string{"-bin", binDir(t), "-rooms", "4", "-idle", "0", "-duration", "1s", "-ref", "0", "-rate", "40"},
		func(string) string { return "" }, &out, &errs)
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	for _, want := range []string{"offered:             40 moves/s over 4 rooms", "from the due time:", "sent late:",
		"errors:              0", "4 of 4 rooms with every client on the server's version"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
}

// TestStoresSmoke keeps -stores working: two rooms per setup for a second,
// SQLite, PostgreSQL and two hosts on one PostgreSQL (a temporary cluster;
// skipped without PostgreSQL unless BANMEN_REQUIRE_PG=1).
func TestStoresSmoke(t *testing.T) {
	if _, err := pgserver.BinDir(); err != nil {
		if os.Getenv("BANMEN_REQUIRE_PG") != "1" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	err := run(ctx, []string{"-bin", binDir(t), "-stores", "-rooms", "4", "-duration", "1s"},
		func(string) string { return "" }, &out, &errs)
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	for _, want := range []string{"sqlite, 1 host", "postgres, 1 host", "postgres, 2 hosts (2 split)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
}
