package fsftest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk/extengine"
)

func writeExe(t *testing.T, name, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func notInstalled(func(string) string) (string, error) { return "", extengine.ErrNotInstalled }

func TestLookup(t *testing.T) {
	good := writeExe(t, "fsf", "#!/bin/sh\nwhile read -r l; do case \"$l\" in usi) echo usiok;; isready) echo readyok;; esac; done\n")
	broken := writeExe(t, "fsf", "#!/bin/sh\necho 'error while loading shared libraries: libstdc++.so.6' >&2\nexit 127\n")
	tests := []struct {
		name     string
		env      map[string]string
		find     func(func(string) string) (string, error)
		wantPath string
		wantSkip bool
		wantErr  string
	}{
		{"not installed: skip", nil, notInstalled, "", true, "not installed"},
		{"not installed but required: fail", map[string]string{EnvRequire: "1"}, notInstalled, "", false, EnvRequire + "=1"},
		{"installed and broken: fail", map[string]string{extengine.EnvFairyStockfish: broken}, extengine.FindFairyStockfish, "", false, "installed but broken"},
		{"named but missing: fail", map[string]string{extengine.EnvFairyStockfish: broken + ".gone"}, extengine.FindFairyStockfish, "", false, "no such file"},
		{"installed and working", map[string]string{extengine.EnvFairyStockfish: good, EnvRequire: "1"}, extengine.FindFairyStockfish, good, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path, skip, err := lookup(func(k string) string { return tc.env[k] }, tc.find)
			if path != tc.wantPath || skip != tc.wantSkip {
				t.Errorf("lookup = %q, skip %v, %v; want %q, skip %v", path, skip, err, tc.wantPath, tc.wantSkip)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want one saying %q", err, tc.wantErr)
			}
			if tc.wantErr == "not installed" && !errors.Is(err, extengine.ErrNotInstalled) {
				t.Errorf("error %v is not ErrNotInstalled", err)
			}
		})
	}
}

// TestPathOnThisMachine: whatever this machine has, Path either returns an
// engine that starts or skips because there is none, never because the one
// there is broken.
func TestPathOnThisMachine(t *testing.T) {
	p := Path(t)
	if err := extengine.Probe(t.Context(), extengine.Config{Command: p, Protocol: extengine.UCCI}); err != nil {
		t.Errorf("%s passed the USI probe but not the UCCI one: %v", p, err)
	}
}
