package config

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	os.WriteFile(file, []byte("port: 9000\nvariants: [xiangqi]\nlimits:\n  call_timeout: 2s\n"), 0o644)
	env := map[string]string{"BANMEN_PORT": "9100", "BANMEN_LIMITS_SUGGEST_TIMEOUT": "4s", "BANMEN_DATA_DIR": "/tmp/x"}
	cfg, err := Load([]string{"-config", file, "-data_dir", "/tmp/y"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Port != 9100 {
		t.Errorf("port = %d, want the environment's 9100", cfg.Port)
	}
	if cfg.DataDir != "/tmp/y" {
		t.Errorf("data_dir = %q, want the flag's /tmp/y", cfg.DataDir)
	}
	if cfg.Limits.CallTimeout != 2*time.Second || cfg.Limits.SuggestTimeout != 4*time.Second {
		t.Errorf("limits = %+v", cfg.Limits)
	}
	if len(cfg.Variants) != 1 || cfg.Variants[0] != "xiangqi" {
		t.Errorf("variants = %v", cfg.Variants)
	}
	if cfg.Limits.BodyBytes != Default().Limits.BodyBytes {
		t.Errorf("unset body_bytes lost its default")
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("prot: 1\n"), 0o644)
	none := func(string) string { return "" }
	for name, args := range map[string][]string{
		"unknown key":  {"-config", bad},
		"missing file": {"-config", filepath.Join(dir, "nope.yaml")},
		"bad duration": {"-limits.call_timeout", "soon"},
		"bad port":     {"-port", "70000"},
		"stray arg":    {"extra"},
	} {
		if _, err := Load(args, none, io.Discard); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Load(nil, func(k string) string {
		if k == "BANMEN_PORT" {
			return "eighty"
		}
		return ""
	}, io.Discard); err == nil {
		t.Error("bad BANMEN_PORT accepted")
	}
}

// The shipped default file parses and agrees with the built-in defaults
// where it repeats them.
func TestShippedDefaults(t *testing.T) {
	cfg, err := Load([]string{"-config", "../../../configs/default.yaml"}, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Port != 8080 || cfg.PluginDir != "bin/plugins" || cfg.Limits.RoomTTL != 7*24*time.Hour {
		t.Errorf("default.yaml: %+v", cfg)
	}
}
