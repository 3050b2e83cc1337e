package harness_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/banmen/banmen/harness"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"typo", "variant: shogi\nstepz: []\n", "line 2: field stepz not found"},
		{"typo in a step", "variant: shogi\nsteps:\n  - open: play\n  - mvoe: 7g7f\n", "line 4: field mvoe not found"},
		{"typo in an expectation", "variant: shogi\nsteps:\n  - expect: {plys: 3}\n", "field plys not found"},
		{"two actions", "variant: shogi\nsteps:\n  - open: play\n    move: 7g7f\n", "step 1 (line 3): a step does exactly one of"},
		{"no action", "variant: shogi\nsteps:\n  - actor: host\n", "(found 0)"},
		{"no variant", "steps: []\n", "no variant"},
		{"unknown device", "variant: shogi\nactors: [{name: a, device: watch}]\n", `unknown device "watch"`},
		{"touch without a touch screen", "variant: shogi\nactors: [{name: a, device: desktop, input: touch}]\n", `input "touch" needs a touch device`},
		{"unknown input", "variant: shogi\nactors: [{name: a, input: voice}]\n", `unknown input "voice"`},
		{"unknown actor", "variant: shogi\nsteps:\n  - open: play\n    actor: guest\n", `no actor "guest"`},
		{"unknown button", "variant: shogi\nsteps:\n  - press: undo\n", `no button named "undo"`},
		{"bad duration", "variant: shogi\nsteps:\n  - wait: soon\n", `line 3: "soon" is not a duration`},
		{"export without a format", "variant: shogi\nsteps:\n  - expect: {export: {contains: [x]}}\n", "needs a format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := harness.Parse([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	sc, err := harness.Parse([]byte("variant: xiangqi\nactors: [{name: p, device: phone}, {name: d}]\nsteps:\n  - press: '#flip'\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Lang != "en" || sc.Actors[0].Input != "touch" || sc.Actors[1].Device != "desktop" || sc.Actors[1].Input != "mouse" {
		t.Errorf("defaults: %+v", sc)
	}
}

// TestParseScenarios keeps every shipped scenario loadable without a browser.
func TestParseScenarios(t *testing.T) {
	files, _ := filepath.Glob("scenarios/*.yaml")
	if len(files) < 10 {
		t.Fatalf("only %d scenarios", len(files))
	}
	for _, f := range files {
		if _, err := harness.Load(f); err != nil {
			t.Error(err)
		}
	}
}
