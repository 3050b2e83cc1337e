package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/banmen/banmen/platform/internal/config"
)

// TestLoadStateKey: without state_key the key is made once and kept in
// the data directory (mode 0600), so a restart accepts the states handed
// out before it; a configured key wins; a damaged file is an error, not a
// silent new key.
func TestLoadStateKey(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	a, err := loadStateKey(cfg)
	if err != nil || len(a) < 32 {
		t.Fatalf("made key %q: %v", a, err)
	}
	path := filepath.Join(cfg.DataDir, "state.key")
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("state.key: %v, mode %v", err, fi.Mode())
	}
	if b, err := loadStateKey(cfg); err != nil || string(b) != string(a) {
		t.Errorf("the second start read %q (%v), want the first key", b, err)
	}
	cfg.StateKey = "a configured key of thirty-two chars"
	if b, _ := loadStateKey(cfg); string(b) != cfg.StateKey {
		t.Errorf("state_key set: got %q", b)
	}
	cfg.StateKey = ""
	os.WriteFile(path, []byte("short\n"), 0o600)
	if _, err := loadStateKey(cfg); err == nil {
		t.Error("a damaged state.key was accepted")
	}
}
