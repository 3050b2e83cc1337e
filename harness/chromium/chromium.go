// Package chromium finds the browser the browser tests and the harness run:
// one lookup, so webui/e2e, the harness's tests and `harness run` agree on
// which Chromium they use and on what a missing one means. It must never
// start the browser or download one.
package chromium

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Env names the browser binary; the harness's -browser flag wins over it.
const Env = "BANMEN_CHROMIUM"

// RequireEnv set to "1" (CI sets it) makes a missing browser a failure
// instead of a skip.
const RequireEnv = "BANMEN_REQUIRE_BROWSER"

// Names are the executables looked up on PATH, in order.
var Names = []string{"chromium", "chromium-browser", "google-chrome"}

// DebianPath is where Debian's package chromium puts the browser; it is
// tried last, for a PATH without /usr/bin.
const DebianPath = "/usr/bin/chromium"

// ErrNotFound is wrapped by Find's error when no browser was found and
// RequireEnv does not ask for one: the caller may skip.
var ErrNotFound = errors.New("no Chromium found")

// Find returns the browser to run: flag (a command's -browser) if given,
// else $BANMEN_CHROMIUM, else the first of Names on $PATH, else DebianPath.
// A browser that was named but is not an executable file is an error. When
// none is found the error wraps ErrNotFound, unless BANMEN_REQUIRE_BROWSER=1:
// then it does not, so no caller can mistake it for a skip.
func Find(flag string, getenv func(string) string) (string, error) {
	return find(flag, getenv, DebianPath)
}

func find(flag string, getenv func(string) string, debian string) (string, error) {
	for _, named := range []struct{ how, path string }{{"-browser", flag}, {Env, getenv(Env)}} {
		if named.path == "" {
			continue
		}
		if err := executable(named.path); err != nil {
			return "", fmt.Errorf("%s %s: %w", named.how, named.path, err)
		}
		return named.path, nil
	}
	for _, dir := range filepath.SplitList(getenv("PATH")) {
		if dir == "" {
			continue
		}
		for _, n := range Names {
			if p := filepath.Join(dir, n); executable(p) == nil {
				return p, nil
			}
		}
	}
	if executable(debian) == nil {
		return debian, nil
	}
	const hint = "install Debian's chromium (scripts/deps.sh does) or set " + Env
	if getenv(RequireEnv) == "1" {
		return "", fmt.Errorf("%s=1 and no Chromium on PATH (%v) or at %s: %s", RequireEnv, Names, debian, hint)
	}
	return "", fmt.Errorf("%w on PATH (%v) or at %s: %s", ErrNotFound, Names, debian, hint)
}

func executable(p string) error {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return err
	case fi.IsDir():
		return errors.New("is a directory")
	case fi.Mode()&0o111 == 0:
		return errors.New("is not executable")
	}
	return nil
}
