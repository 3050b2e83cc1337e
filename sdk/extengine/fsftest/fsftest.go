// Package fsftest gives tests a working Fairy-Stockfish, or says clearly why
// there is none. It is for _test.go files only; it never decides that a
// broken engine is an absent one.
//
// A test that needs the engine calls Path(t):
//   - not installed (extengine.FindFairyStockfish finds nothing): the test
//     skips, unless $BANMEN_REQUIRE_FSF is 1, when it fails (.ci/run sets
//     it, since it installs the engine: a CI run must not pass by skipping);
//   - installed or named by $BANMEN_FAIRY_STOCKFISH but it does not start
//     and answer the USI handshake: the test fails;
//   - else it returns the engine's path.
package fsftest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk/extengine"
)

// EnvRequire, set to 1, turns "Fairy-Stockfish is not installed" from a
// skip into a failure.
const EnvRequire = "BANMEN_REQUIRE_FSF"

// probeTimeout bounds the handshake of the probe: a guard against an engine
// that hangs, far above the few milliseconds a start takes.
const probeTimeout = 30 * time.Second

// Path returns the path of a Fairy-Stockfish that starts, or ends t: Skip
// when none is installed (Fatal with $BANMEN_REQUIRE_FSF=1), Fatal when the
// one found is broken.
func Path(t testing.TB) string {
	t.Helper()
	path, skip, err := lookup(os.Getenv, extengine.FindFairyStockfish)
	switch {
	case skip:
		t.Skip(err)
	case err != nil:
		t.Fatal(err)
	}
	return path
}

// probed caches the probe of each path: many tests of one binary ask.
var probed sync.Map // path → error (nil when it starts)

// lookup finds the engine with find and probes it; skip is true only when
// it is not installed and not required.
func lookup(getenv func(string) string, find func(func(string) string) (string, error)) (path string, skip bool, err error) {
	path, err = find(getenv)
	if errors.Is(err, extengine.ErrNotInstalled) {
		if getenv(EnvRequire) == "1" {
			return "", false, fmt.Errorf("%w; %s=1 requires it", err, EnvRequire)
		}
		return "", true, err
	}
	if err != nil {
		return "", false, err
	}
	v, ok := probed.Load(path)
	if !ok {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		err := extengine.Probe(ctx, extengine.Config{Command: path, Protocol: extengine.USI, StartTimeout: probeTimeout})
		cancel()
		v, _ = probed.LoadOrStore(path, errBox{err})
	}
	if err := v.(errBox).err; err != nil {
		return "", false, fmt.Errorf("fairy-stockfish is installed but broken: %w", err)
	}
	return path, false, nil
}

// errBox lets a nil error be stored in a sync.Map.
type errBox struct{ err error }
