package extengine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// EnvFairyStockfish names the Fairy-Stockfish executable to use, overriding
// the search of FindFairyStockfish.
const EnvFairyStockfish = "BANMEN_FAIRY_STOCKFISH"

// DebianFairyStockfish is where Debian's package fairy-stockfish installs
// the engine; /usr/games is not on every PATH (root's, CI runners').
const DebianFairyStockfish = "/usr/games/fairy-stockfish"

// debianPath is DebianFairyStockfish, a variable so that tests can move it.
var debianPath = DebianFairyStockfish

// ErrNotInstalled is returned by FindFairyStockfish when no engine is found
// and none was named.
var ErrNotInstalled = errors.New("fairy-stockfish is not installed (apt-get install fairy-stockfish, or set " + EnvFairyStockfish + ")")

// FindFairyStockfish is the one way Banmen's tests, benchmarks and match
// command find Fairy-Stockfish: the executable named by $BANMEN_FAIRY_STOCKFISH
// when set, else "fairy-stockfish" on $PATH, else Debian's
// /usr/games/fairy-stockfish. getenv is os.Getenv or a stand-in.
//
// It returns ErrNotInstalled only when nothing was named and nothing found;
// a $BANMEN_FAIRY_STOCKFISH that names no executable file is another error,
// since a setting that points nowhere is a mistake, not an absence. It does
// not run the engine: Probe does.
func FindFairyStockfish(getenv func(string) string) (string, error) {
	if p := getenv(EnvFairyStockfish); p != "" {
		if err := executable(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvFairyStockfish, p, err)
		}
		return p, nil
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, "fairy-stockfish"); executable(p) == nil {
			return p, nil
		}
	}
	if executable(debianPath) == nil {
		return debianPath, nil
	}
	return "", ErrNotInstalled
}

// executable tells why path is not a file someone may execute, or nil.
func executable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case fi.IsDir():
		return errors.New("is a directory")
	case fi.Mode().Perm()&0o111 == 0:
		return errors.New("is not executable")
	}
	return nil
}

// Probe starts the engine of cfg, waits for its handshake (the protocol's
// hello, "readyok"), and ends it: whether cfg names an engine that runs. An
// installed but broken engine (a missing library, a wrong architecture, a
// program that is no engine) is an error here, not a fallback later.
func Probe(ctx context.Context, cfg Config) error {
	e := New(cfg)
	defer e.Close()
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.start(ctx); err != nil {
		e.kill()
		return fmt.Errorf("%s does not start as a %s engine: %w", cfg.Command, cfg.Protocol, err)
	}
	return nil
}
