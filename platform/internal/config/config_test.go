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
		"bad store":    {"-store", "mysql"},
		"no dsn":       {"-store", "postgres"},
		// A cluster must share one state key; a key must be long enough.
		"postgres, no state key": {"-store", "postgres", "-store_dsn", "postgres://db/banmen"},
		"short state key":        {"-state_key", "short"},
		"bad proxy":              {"-trusted_proxies", "10.0.0.0/8,not-an-address"},
		"public_url with a path": {"-public_url", "https://banmen.example/play"},
		"public_url no scheme":   {"-public_url", "banmen.example"},
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
	root, _ := filepath.Abs("../../..")
	if cfg.Port != 8080 || cfg.PluginDir != filepath.Join(root, "bin", "plugins") ||
		cfg.DataDir != filepath.Join(root, "data") || cfg.Limits.RoomTTL != 7*24*time.Hour {
		t.Errorf("default.yaml: %+v", cfg)
	}
}

// Relative paths resolve by where they were set: built-in ones beside the
// executable, a file's beside the file, a flag's or variable's in the working
// directory. Without -config the default file is found beside the
// executable's directory when the working directory has none.
func TestRelativePaths(t *testing.T) {
	root := t.TempDir() // a checkout: bin/banmen, configs/default.yaml
	exe := filepath.Join(root, "bin", "banmen")
	os.MkdirAll(filepath.Join(root, "configs"), 0o755)
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.WriteFile(filepath.Join(root, "configs", "default.yaml"), []byte("plugin_dir: ../bin/plugins\nport: 9001\n"), 0o644)
	os.WriteFile(filepath.Join(root, "etc", "banmen.yaml"), []byte("data_dir: state\nport: 9002\n"), 0o644)
	t.Chdir(t.TempDir()) // anywhere else
	none := func(string) string { return "" }
	cases := []struct {
		name              string
		exe               string
		args              []string
		env               map[string]string
		port              int
		pluginDir, data   string
		pluginO, dataOrig string
	}{
		{"default file beside the executable", exe, nil, nil, 9001,
			filepath.Join(root, "bin", "plugins"), filepath.Join(root, "bin", "data"),
			"config file " + filepath.Join(root, "configs", "default.yaml"), "the built-in default"},
		{"explicit file", exe, []string{"-config", filepath.Join(root, "etc", "banmen.yaml")}, nil, 9002,
			filepath.Join(root, "bin", "plugins"), filepath.Join(root, "etc", "state"),
			"the built-in default", "config file " + filepath.Join(root, "etc", "banmen.yaml")},
		{"flag and variable", exe, []string{"-plugin_dir", "p"}, map[string]string{"BANMEN_DATA_DIR": "d"}, 9001,
			"p", "d", "-plugin_dir", "BANMEN_DATA_DIR"},
		{"no default file", filepath.Join(root, "opt", "bin", "banmen"), nil, nil, 8080,
			filepath.Join(root, "opt", "bin", "plugins"), filepath.Join(root, "opt", "bin", "data"),
			"the built-in default", "the built-in default"},
		{"unknown executable", "", nil, nil, 8080, "plugins", "data", "the built-in default", "the built-in default"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			getenv := none
			if c.env != nil {
				getenv = func(k string) string { return c.env[k] }
			}
			cfg, err := load(c.exe, c.args, getenv, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Port != c.port || cfg.PluginDir != c.pluginDir || cfg.DataDir != c.data {
				t.Errorf("port, plugin_dir, data_dir = %d %q %q, want %d %q %q",
					cfg.Port, cfg.PluginDir, cfg.DataDir, c.port, c.pluginDir, c.data)
			}
			if o := cfg.Origin("plugin_dir"); o != c.pluginO {
				t.Errorf("plugin_dir from %q, want %q", o, c.pluginO)
			}
			if o := cfg.Origin("data_dir"); o != c.dataOrig {
				t.Errorf("data_dir from %q, want %q", o, c.dataOrig)
			}
		})
	}
}

// A setting that does not work is named in the error, with where its value
// came from and how to set another.
func TestSettingError(t *testing.T) {
	cfg, err := load("/opt/banmen/banmen", nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.SettingError("plugin_dir", os.ErrNotExist).Error()
	want := `plugin_dir "/opt/banmen/plugins" (from the built-in default): file does not exist; set another with -plugin_dir or BANMEN_PLUGIN_DIR`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
