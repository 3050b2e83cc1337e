package chromium

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	exe := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	named := exe("named/chrome")
	onPath := exe("path/chromium-browser")
	debian := exe("usr/bin/chromium")
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		name   string
		flag   string
		env    map[string]string
		debian string
		want   string // the path found, or the error's text
		skip   bool   // the error wraps ErrNotFound
	}{
		{name: "flag first", flag: named, env: map[string]string{Env: onPath, "PATH": filepath.Dir(onPath)}, want: named},
		{name: "then the env", env: map[string]string{Env: named, "PATH": filepath.Dir(onPath)}, want: named},
		{name: "then PATH", env: map[string]string{"PATH": "/nonexistent:" + filepath.Dir(onPath)}, debian: debian, want: onPath},
		{name: "then Debian's path", env: map[string]string{"PATH": ""}, debian: debian, want: debian},
		{name: "a named browser must exist", flag: missing, want: "-browser " + missing + ": stat"},
		{name: "and be executable", env: map[string]string{Env: plain}, want: "is not executable"},
		{name: "none: skip", env: map[string]string{"PATH": ""}, debian: missing, want: "no Chromium found", skip: true},
		{name: "none but required: fail", env: map[string]string{"PATH": "", RequireEnv: "1"}, debian: missing, want: "BANMEN_REQUIRE_BROWSER=1 and no Chromium"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			if tc.debian == "" {
				tc.debian = missing
			}
			got, err := find(tc.flag, getenv, tc.debian)
			if err == nil {
				if got != tc.want {
					t.Errorf("found %q, want %q", got, tc.want)
				}
				return
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want %q", err, tc.want)
			}
			if errors.Is(err, ErrNotFound) != tc.skip {
				t.Errorf("error %q: wraps ErrNotFound = %v, want %v", err, !tc.skip, tc.skip)
			}
		})
	}
}
