package main

import (
	"bytes"
	"context"
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
