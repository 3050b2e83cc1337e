package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunUsage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("variant: shogi\nsteps:\n  - presss: resign\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(string) string { return "" }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "no command"},
		{[]string{"play"}, "no command"},
		{[]string{"run", "-base", "http://127.0.0.1:1"}, "no scenario files"},
		{[]string{"run", "-base", "http://127.0.0.1:1", filepath.Join(dir, "missing.yaml")}, "no such file"},
		{[]string{"run", "-base", "http://127.0.0.1:1", bad}, "line 3: field presss not found"},
		// A directory is every *.yaml inside it, so its broken scenario is read.
		{[]string{"run", "-base", "http://127.0.0.1:1", dir}, "bad.yaml: yaml: unmarshal errors"},
		{[]string{"run", "-base", "http://127.0.0.1:1", filepath.Join(dir, "nothing-*.yaml")}, "matches no file"},
		{[]string{"run", "-parallel", "x"}, "invalid value"},
		{[]string{"game", "-base", "http://127.0.0.1:1"}, "say -variant"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), tc.args, getenv, &out, &errb)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run %q = %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}

// TestUsageListsEverything: harness with no arguments names its three
// commands and every flag, -timeout-scale among them.
func TestUsageListsEverything(t *testing.T) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), nil, func(string) string { return "" }, &out, &errb); err == nil {
		t.Fatal("no command passed")
	}
	for _, w := range []string{"harness run", "harness game", "harness conformance", "-variant", "-plugin_dir", "-timeout-scale", "-retries"} {
		if !strings.Contains(errb.String(), w) {
			t.Errorf("the usage lacks %q:\n%s", w, errb.String())
		}
	}
}

// TestSetupErrors: a site that cannot be reached and a browser that is not
// there are one error each, said once, and not "scenarios failed" (which
// exits 1): main exits 2 on them.
func TestSetupErrors(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, n := range []string{"a", "b", "c"} {
		p := filepath.Join(dir, n+".yaml")
		if err := os.WriteFile(p, []byte("variant: shogi\nsteps:\n  - open: play\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	getenv := func(string) string { return "" }
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"run", "-junit", "", "-html", "", "-base", "http://127.0.0.1:1", "-browser", self}, files...), "the site http://127.0.0.1:1 cannot be reached"},
		{append([]string{"run", "-junit", "", "-html", "", "-base", "http://127.0.0.1:1", "-browser", filepath.Join(dir, "no-browser")}, files...), "no-browser"},
	} {
		var out, errb bytes.Buffer
		err := run(context.Background(), tc.args, getenv, &out, &errb)
		if err == nil || errors.Is(err, errFailed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run %q = %v, want a setup error with %q", tc.args, err, tc.want)
		}
		if strings.Contains(out.String(), "FAIL") {
			t.Errorf("a setup error reported per scenario:\n%s", out.String())
		}
		if code := exitCode(err); code != 2 {
			t.Errorf("exit code %d, want 2", code)
		}
	}
}
