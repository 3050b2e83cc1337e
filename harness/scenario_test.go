package harness_test

import (
	"os"
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
		{"unknown browser", "variant: shogi\nactors: [{name: a, browser: safari}]\n", `actor "a": unknown browser "safari" (have chromium, firefox, webkit)`},
		{"skipIn an unknown browser", "variant: shogi\nskipIn: {safari: no}\n", `skipIn: unknown browser "safari"`},
		{"skipIn without a reason", "variant: shogi\nskipIn: {firefox: \"\"}\n", "skipIn firefox: say why"},
		{"screenshot name", "variant: shogi\nsteps:\n  - screenshot: a/b\n", "a screenshot's name is a file name"},
		{"touch without a touch screen", "variant: shogi\nactors: [{name: a, device: desktop, input: touch}]\n", `input "touch" needs a touch device`},
		{"unknown input", "variant: shogi\nactors: [{name: a, input: voice}]\n", `unknown input "voice"`},
		{"unknown actor", "variant: shogi\nsteps:\n  - open: play\n    actor: guest\n", `no actor "guest"`},
		{"unknown button", "variant: shogi\nsteps:\n  - press: undo\n", `no button named "undo"`},
		{"invite of nobody", "variant: shogi\nsteps:\n  - open: room\n  - open: invite of guest\n", `step 2 (line 4): open invite of guest: no actor "guest"`},
		{"room of nobody", "variant: shogi\nsteps:\n  - open: room of guest\n", `open room of guest: no actor "guest"`},
		{"unknown network", "variant: shogi\nsteps:\n  - network: off\n", `network is cut or restore, not "off"`},
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

// TestLoadAll: scenarios come from files, directories (every *.yaml inside,
// by name, not below) and globs; a directory or a pattern that names none is
// an error.
func TestLoadAll(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const sc = "variant: shogi\nsteps:\n  - open: play\n"
	write("b.yaml", sc)
	a := write("a.yaml", sc)
	write("notes.txt", "not a scenario")
	write("deeper/c.yaml", sc)
	write("empty/readme.md", "")
	for _, tc := range []struct {
		args []string
		want string // the scenarios' names, or the error's text
	}{
		{[]string{dir}, "a b"},
		{[]string{a}, "a"},
		{[]string{filepath.Join(dir, "*.yaml"), filepath.Join(dir, "deeper")}, "a b c"},
		{[]string{filepath.Join(dir, "empty")}, "no *.yaml scenarios in this directory"},
		{[]string{filepath.Join(dir, "x*.yaml")}, "matches no file"},
		{[]string{filepath.Join(dir, "missing.yaml")}, "no such file"},
	} {
		scs, err := harness.LoadAll(tc.args...)
		var got []string
		for _, s := range scs {
			got = append(got, s.Name)
		}
		s := strings.Join(got, " ")
		if err != nil {
			s = err.Error()
		}
		if s != tc.want && (err == nil || !strings.Contains(s, tc.want)) {
			t.Errorf("LoadAll(%q) = %s, want %s", tc.args, s, tc.want)
		}
	}
}

// TestShippedScenariosLoad: `harness run harness/scenarios` reads them all.
func TestShippedScenariosLoad(t *testing.T) {
	scs, err := harness.LoadAll("scenarios")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("scenarios/*.yaml")
	if len(scs) != len(files) || len(scs) == 0 {
		t.Errorf("LoadAll(scenarios) read %d scenarios of %d files", len(scs), len(files))
	}
	// The room scenarios are among them, each with a browser per person.
	rooms := map[string]int{}
	for _, sc := range scs {
		if strings.HasPrefix(sc.Name, "room-") {
			rooms[sc.Name] = len(sc.Actors)
		}
	}
	for name, actors := range map[string]int{
		"room-shogi-phone-desktop": 2, "room-xiangqi-phone-desktop": 2, "room-reconnect": 2,
		"room-second-tab": 2, "room-new-round": 2, "room-spectator": 3,
		"room-shogi-touch-promotion": 2, "room-firefox-host-chromium-guest": 2,
		"room-yonin-four-devices": 4, "room-yonin-computer-takes-over": 2,
	} {
		if rooms[name] != actors {
			t.Errorf("scenario %s: %d actors, want %d", name, rooms[name], actors)
		}
	}
	// One online game is played between the two engines.
	for _, sc := range scs {
		if sc.Name == "room-firefox-host-chromium-guest" && (sc.Actors[0].Browser != "firefox" || sc.Actors[1].Browser != "chromium") {
			t.Errorf("%s: actors on %q and %q, want a Firefox host and a Chromium guest", sc.Name, sc.Actors[0].Browser, sc.Actors[1].Browser)
		}
	}
}
