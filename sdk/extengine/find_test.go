package extengine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeUSI answers the USI handshake and nothing else.
const fakeUSI = `#!/bin/sh
while read -r l; do
	case "$l" in
	usi) echo "id name fake"; echo usiok ;;
	isready) echo readyok ;;
	quit) exit 0 ;;
	esac
done
`

// writeExe writes an executable script name in dir and returns its path.
func writeExe(t *testing.T, dir, name, script string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFindFairyStockfish(t *testing.T) {
	onPath, named, debian, empty := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	inPath := writeExe(t, onPath, "fairy-stockfish", fakeUSI)
	override := writeExe(t, named, "my-fsf", fakeUSI)
	deb := writeExe(t, debian, "fairy-stockfish", fakeUSI)
	plain := filepath.Join(named, "not-executable")
	if err := os.WriteFile(plain, []byte(fakeUSI), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(p string) { debianPath = p }(debianPath)

	tests := []struct {
		name   string
		env    map[string]string
		debian string
		want   string
		err    string // "" for none, "not installed" for ErrNotInstalled
	}{
		{"the setting wins", map[string]string{EnvFairyStockfish: override, "PATH": onPath}, deb, override, ""},
		{"then PATH", map[string]string{"PATH": empty + string(os.PathListSeparator) + onPath}, deb, inPath, ""},
		{"then Debian's path", map[string]string{"PATH": empty}, deb, deb, ""},
		{"nowhere", map[string]string{"PATH": empty}, filepath.Join(empty, "fairy-stockfish"), "", "not installed"},
		{"a missing named engine is an error", map[string]string{EnvFairyStockfish: filepath.Join(empty, "gone"), "PATH": onPath}, deb, "", "no such file"},
		{"a named file that cannot run", map[string]string{EnvFairyStockfish: plain}, deb, "", "not executable"},
		{"a named directory", map[string]string{EnvFairyStockfish: named}, deb, "", "directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			debianPath = tc.debian
			got, err := FindFairyStockfish(env(tc.env))
			switch {
			case tc.err == "not installed":
				if !errors.Is(err, ErrNotInstalled) {
					t.Errorf("got %q, %v; want ErrNotInstalled", got, err)
				}
			case tc.err != "":
				if err == nil || errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("got %q, %v; want an error about %q that is not ErrNotInstalled", got, err, tc.err)
				}
			case err != nil || got != tc.want:
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestProbe: an engine that answers its handshake passes; one that is
// installed but does not start, or starts and is no engine, is an error.
func TestProbe(t *testing.T) {
	dir := t.TempDir()
	good := writeExe(t, dir, "good", fakeUSI)
	broken := writeExe(t, dir, "broken", "#!/bin/sh\necho 'fairy-stockfish: error while loading shared libraries' >&2\nexit 127\n")
	chatty := writeExe(t, dir, "chatty", "#!/bin/sh\necho 'Fairy-Stockfish, but not today'\n")
	badInterp := writeExe(t, dir, "bad-interpreter", "#!/nonexistent/sh\n")
	if err := Probe(context.Background(), Config{Command: good, Protocol: USI}); err != nil {
		t.Errorf("a working engine: %v", err)
	}
	for _, cmd := range []string{broken, chatty, badInterp, filepath.Join(dir, "missing")} {
		if err := Probe(context.Background(), Config{Command: cmd, Protocol: USI}); err == nil {
			t.Errorf("%s: no error", filepath.Base(cmd))
		} else if !strings.Contains(err.Error(), cmd) {
			t.Errorf("%s: the error %q does not name the engine", filepath.Base(cmd), err)
		}
	}
}
