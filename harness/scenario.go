// Package harness plays scripted games in real browsers against a Banmen
// site, end to end: a scenario file (YAML) names a variant, the actors (each
// its own browser profile on its own device, in Chromium, Firefox or WebKit) and the
// steps (open a page,
// press a button, make a move by its notation with the actor's input method,
// reload, go offline, expect a position, a result, an exported record...).
//
// The harness knows no game rule. It learns what a move is from the site
// itself: the View the API returns for the game the page keeps lists every
// legal move with its cells, and the harness only clicks, taps or keys its
// way to them. Every way it touches the page (selectors, data attributes) is
// in selectors.go, so a change of the web UI is a change of one file.
//
// Browsers are engines behind one interface (driver.go): Chromium through
// the DevTools protocol (chrome.go, with chromedp), Firefox through
// WebDriver BiDi (firefox.go, with the small client in internal/bidi) and
// WebKit through WebDriver classic (webkit.go, internal/webdriver).
package harness

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Scenario is one scripted session, as read from a scenario file.
type Scenario struct {
	// Name is what reports call the scenario; it defaults to the file name.
	Name string `yaml:"name"`
	// Description says what the scenario proves, and its sources.
	Description string `yaml:"description"`
	// Variant is the game's ID, as in /api/v1/variants ("shogi").
	Variant string `yaml:"variant"`
	// Lang is the site language of the pages opened ("en" by default).
	Lang string `yaml:"lang"`
	// Skip, when set, is why the scenario does not run yet.
	Skip string `yaml:"skip"`
	// SkipIn says, per browser engine ("firefox"), why the scenario does
	// not run in it: a run in that engine reports it skipped with the
	// reason, never silently.
	SkipIn map[string]string `yaml:"skipIn"`
	// Timeout bounds the whole scenario (5m by default).
	Timeout Duration `yaml:"timeout"`
	// Actors are the people at the table; the first is the default actor of
	// a step.
	Actors []Actor `yaml:"actors"`
	Steps  []Step  `yaml:"steps"`

	// File is the scenario's path; files it names are relative to its folder.
	File string `yaml:"-"`
}

// Actor is one person with their own browser profile and device.
type Actor struct {
	// Name identifies the actor in steps: "host", "guest", "spectator"...
	Name string `yaml:"name"`
	// Device is a class of Devices ("phone", "tablet", "desktop"; default
	// desktop); Viewport overrides parts of it.
	Device   string    `yaml:"device"`
	Viewport *Viewport `yaml:"viewport"`
	// Input is how the actor moves pieces: mouse, drag, touch, touch-drag or
	// keyboard (default: touch on touch devices, else mouse).
	Input string `yaml:"input"`
	// Browser is the actor's engine, "chromium", "firefox" or "webkit",
	// whatever the run's engine (default: the run's).
	Browser string `yaml:"browser"`
}

// Step is one thing an actor does or checks. Exactly one action field is set.
type Step struct {
	// Actor names who acts (default: the first actor); Tab is which of the
	// actor's tabs, from 1 (default: the last one opened); Input overrides
	// the actor's input method for this step.
	Actor string `yaml:"actor"`
	Tab   int    `yaml:"tab"`
	Input string `yaml:"input"`

	// Open loads a page: "home", "landing", "play" (a Same-device game),
	// or a path from the site's root where {lang} and {variant} are
	// replaced. "room" creates a room from the landing page (Play with a
	// friend); "invite of NAME" opens the invitation link NAME's room page
	// shows; "room of NAME" opens the room NAME's page is in (a second tab
	// of the same person, a spectator). With a Tab the actor has not opened
	// yet, it opens a new tab of the same profile.
	Open string `yaml:"open"`
	// Settings, with open: room, are the room settings Play with a friend
	// asks for a game with room settings (Yonin), by their keys (the
	// variant's options and the sdk's host settings: move_limit,
	// host.move_time); the others keep their defaults.
	Settings map[string]string `yaml:"settings"`
	// Press clicks a button by its name in Buttons, by a CSS selector, or
	// by a locator of its role and name or its text
	// (role=button[name="Resign"], text=Export; see locators.go).
	Press string `yaml:"press"`
	// Move makes one move by its notation (View.legal[].move); Moves makes
	// several, the seat to move each time. "any" is the first board move
	// of the seat to move (AnyMove), for a position the computer made.
	Move  string   `yaml:"move"`
	Moves []string `yaml:"moves"`
	// Attempt makes a move's gestures without waiting for the page to play
	// it: for a move the page should refuse (offline, say), checked by a
	// following expect.
	Attempt string `yaml:"attempt"`
	// Replay plays every move of a game record from the start, in the
	// browser, by the actor's input method.
	Replay *Record `yaml:"replay"`
	// Reload reloads the page.
	Reload bool `yaml:"reload"`
	// Offline cuts the actor's network (true) or gives it back (false).
	Offline *bool `yaml:"offline"`
	// Network "cut" cuts the actor's network as Offline does and also
	// closes the room sockets of every tab (a browser keeps an open
	// WebSocket through DevTools' Offline) and fails new ones; "restore"
	// gives it back.
	Network string `yaml:"network"`
	// Wait pauses.
	Wait Duration `yaml:"wait"`
	// Screenshot saves the whole page of the actor's tab (not only the
	// screen) as NAME.png in the scenario's folder under the output
	// directory, passed or not.
	Screenshot string `yaml:"screenshot"`
	// Script runs JavaScript in the page: an escape hatch for what no step
	// does yet. A rejected promise or a thrown error fails the step.
	Script string `yaml:"script"`
	// Fill types text (or a file's text) into a field by name or selector.
	Fill *Fill `yaml:"fill"`
	// Select chooses an option of a <select>, or the radio button of a value
	// in a group (by the input method, as a person does), by name or
	// selector.
	Select *Fill `yaml:"select"`
	// Expect checks the page, polling until it holds or its time is up.
	Expect *Expect `yaml:"expect"`

	line int
}

// Record is a game record file and its notation (default: from the file
// extension, matched against the variant's notations).
type Record struct {
	File   string `yaml:"file"`
	Format string `yaml:"format"`
}

// Fill names a field and what goes in it.
type Fill struct {
	Field string `yaml:"field"`
	Text  string `yaml:"text"`
	File  string `yaml:"file"`
	Value string `yaml:"value"`
}

// Expect is what should be true of the page. Unset fields are not checked.
type Expect struct {
	// Status is body[data-status]: "playing" or "over".
	Status string `yaml:"status"`
	// Ply is body[data-ply].
	Ply *int `yaml:"ply"`
	// ToMove is the seats to move, from the game the page keeps.
	ToMove []int `yaml:"toMove"`
	// Position is the current position text (View.position).
	Position string `yaml:"position"`
	// Moves are the moves played, in notation (View.history[].move).
	Moves []string `yaml:"moves"`
	// MoveList are the texts of the move list panel, as shown.
	MoveList []string `yaml:"moveList"`
	// Result is how the game ended.
	Result *ResultExpect `yaml:"result"`
	// Export exports through the moves panel and checks the text.
	Export *ExportExpect `yaml:"export"`
	// Record: the game on the page is the game of this record, move for
	// move, ending in the same position.
	Record *Record `yaml:"record"`
	// Message is text visible on the page; NoMessage must not be.
	Message   string `yaml:"message"`
	NoMessage string `yaml:"noMessage"`
	// Visible and Hidden name buttons (or selectors, or locators) that must
	// be shown or not.
	Visible string `yaml:"visible"`
	Hidden  string `yaml:"hidden"`
	// Busy is body[data-busy]: whether a move or a suggestion request is in
	// flight. busy: false waits until the computer has moved.
	Busy *bool `yaml:"busy"`
	// Data are body data attributes (dataset names: level, toMove) and
	// their values.
	Data map[string]string `yaml:"data"`
	// Notice is the i18n key of a notice or of the status line shown
	// (ui.resumed, ui.imported, ui.wins...).
	Notice string `yaml:"notice"`
	// NoJSErrors: no uncaught exception or console.error so far. (Every
	// scenario also fails at its end on an uncaught exception.)
	NoJSErrors bool `yaml:"noJSErrors"`
	// Within bounds the polling (the step timeout by default).
	Within Duration `yaml:"within"`
}

// ResultExpect is an expected View.result.
type ResultExpect struct {
	Winners []int  `yaml:"winners"`
	Reason  string `yaml:"reason"`
	Draw    *bool  `yaml:"draw"`
}

// ExportExpect exports in Format and checks the text.
type ExportExpect struct {
	Format string `yaml:"format"`
	// Contains are substrings the text must hold; Equals is the whole text
	// (spaces at the ends ignored); File holds the whole text.
	Contains []string `yaml:"contains"`
	Equals   string   `yaml:"equals"`
	File     string   `yaml:"file"`
}

// Duration is a time.Duration written as "1.5s" in YAML.
type Duration time.Duration

// UnmarshalYAML reads "250ms", "2m".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration like 500ms or 2m", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// LoadAll reads the scenarios paths name, in order: a file, a directory
// (every *.yaml directly inside it, by name) or a glob pattern. A directory
// or a pattern that names no scenario is an error, so a typo never runs
// nothing and passes.
func LoadAll(paths ...string) ([]*Scenario, error) {
	var scs []*Scenario
	for _, p := range paths {
		files, err := scenarioFiles(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			sc, err := Load(f)
			if err != nil {
				return nil, err
			}
			scs = append(scs, sc)
		}
	}
	return scs, nil
}

func scenarioFiles(p string) ([]string, error) {
	fi, err := os.Stat(p)
	switch {
	case err == nil && fi.IsDir():
		files, _ := filepath.Glob(filepath.Join(p, "*.yaml"))
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no *.yaml scenarios in this directory", p)
		}
		return files, nil
	case err == nil:
		return []string{p}, nil
	case strings.ContainsAny(p, "*?["):
		files, gerr := filepath.Glob(p)
		if gerr != nil {
			return nil, fmt.Errorf("%s: %w", p, gerr)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: matches no file", p)
		}
		return files, nil
	}
	return nil, err
}

// Load reads a scenario file. Unknown fields are errors, with their line.
func Load(path string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sc.File = path
	if sc.Name == "" {
		sc.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return sc, nil
}

// Parse reads a scenario from YAML and checks it.
func Parse(b []byte) (*Scenario, error) {
	var sc Scenario
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		return nil, err
	}
	// The decoder keeps no positions, so read them again for messages
	// about a step.
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err == nil && len(root.Content) == 1 {
		m := root.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == "steps" {
				for j, s := range m.Content[i+1].Content {
					if j < len(sc.Steps) {
						sc.Steps[j].line = s.Line
					}
				}
			}
		}
	}
	if err := sc.check(); err != nil {
		return nil, err
	}
	return &sc, nil
}

func (sc *Scenario) check() error {
	var errs []error
	if sc.Variant == "" {
		errs = append(errs, errors.New("no variant"))
	}
	if sc.Lang == "" {
		sc.Lang = "en"
	}
	if sc.Timeout == 0 {
		sc.Timeout = Duration(5 * time.Minute)
	}
	if len(sc.Actors) == 0 {
		sc.Actors = []Actor{{Name: "host"}}
	}
	names := map[string]bool{}
	for i := range sc.Actors {
		a := &sc.Actors[i]
		if a.Name == "" {
			errs = append(errs, fmt.Errorf("actor %d has no name", i+1))
		}
		if names[a.Name] {
			errs = append(errs, fmt.Errorf("actor %q twice", a.Name))
		}
		names[a.Name] = true
		if a.Device == "" {
			a.Device = "desktop"
		}
		dev, ok := Devices[a.Device]
		if !ok {
			errs = append(errs, fmt.Errorf("actor %q: unknown device %q (have %s)", a.Name, a.Device, strings.Join(deviceNames(), ", ")))
			continue
		}
		if a.Input == "" {
			a.Input = "mouse"
			if dev.Touch {
				a.Input = "touch"
			}
		}
		if err := checkInput(a.Input, dev, a.Viewport); err != nil {
			errs = append(errs, fmt.Errorf("actor %q: %w", a.Name, err))
		}
		if _, ok := engines[a.Browser]; a.Browser != "" && !ok {
			errs = append(errs, fmt.Errorf("actor %q: unknown browser %q (have %s)", a.Name, a.Browser, strings.Join(EngineNames(), ", ")))
		}
	}
	for e, why := range sc.SkipIn {
		if _, ok := engines[e]; !ok {
			errs = append(errs, fmt.Errorf("skipIn: unknown browser %q (have %s)", e, strings.Join(EngineNames(), ", ")))
		}
		if strings.TrimSpace(why) == "" {
			errs = append(errs, fmt.Errorf("skipIn %s: say why the scenario cannot run there", e))
		}
	}
	for i := range sc.Steps {
		s := &sc.Steps[i]
		at := fmt.Sprintf("step %d (line %d)", i+1, s.line)
		n := 0
		for _, set := range []bool{s.Open != "", s.Press != "", s.Move != "", len(s.Moves) > 0, s.Attempt != "", s.Replay != nil,
			s.Reload, s.Offline != nil, s.Network != "", s.Wait != 0, s.Screenshot != "", s.Script != "", s.Fill != nil, s.Select != nil, s.Expect != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			errs = append(errs, fmt.Errorf("%s: a step does exactly one of open, press, move, moves, attempt, replay, reload, offline, network, wait, screenshot, script, fill, select, expect (found %d)", at, n))
		}
		if s.Actor != "" && !names[s.Actor] {
			errs = append(errs, fmt.Errorf("%s: no actor %q", at, s.Actor))
		}
		if s.Input != "" {
			if err := checkInput(s.Input, Device{Touch: true}, nil); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", at, err))
			}
		}
		if len(s.Settings) > 0 && s.Open != "room" {
			errs = append(errs, fmt.Errorf("%s: settings go with open: room", at))
		}
		if s.Network != "" && s.Network != "cut" && s.Network != "restore" {
			errs = append(errs, fmt.Errorf("%s: network is cut or restore, not %q", at, s.Network))
		}
		if _, who, ok := openOf(s.Open); ok && !names[who] {
			errs = append(errs, fmt.Errorf("%s: open %s: no actor %q", at, s.Open, who))
		}
		if s.Screenshot != "" && slug(s.Screenshot) != s.Screenshot {
			errs = append(errs, fmt.Errorf("%s: a screenshot's name is a file name (letters, digits, . _ -), not %q", at, s.Screenshot))
		}
		if s.Tab < 0 {
			errs = append(errs, fmt.Errorf("%s: tabs count from 1", at))
		}
		if s.Press != "" && !isSelector(s.Press) && !isLocator(s.Press) && Buttons[s.Press] == "" {
			errs = append(errs, fmt.Errorf("%s: no button named %q (have %s, or give a CSS selector or a locator, role=button[name=\"…\"] or text=…)", at, s.Press, strings.Join(buttonNames(), ", ")))
		}
		for _, l := range []string{s.Press, expectField(s.Expect, true), expectField(s.Expect, false)} {
			if isLocator(l) {
				if _, err := parseLocator(l); err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", at, err))
				}
			}
		}
		if s.Expect != nil && s.Expect.Export != nil && s.Expect.Export.Format == "" {
			errs = append(errs, fmt.Errorf("%s: an export expectation needs a format", at))
		}
		if s.Replay != nil && s.Replay.File == "" {
			errs = append(errs, fmt.Errorf("%s: replay needs a file", at))
		}
	}
	return errors.Join(errs...)
}

// expectField is an expectation's visible (or hidden) name, "" without one.
func expectField(e *Expect, visible bool) string {
	switch {
	case e == nil:
		return ""
	case visible:
		return e.Visible
	}
	return e.Hidden
}

// openOf splits "invite of NAME" and "room of NAME".
func openOf(open string) (what, who string, ok bool) {
	what, who, ok = strings.Cut(open, " of ")
	if !ok || (what != "invite" && what != "room") {
		return "", "", false
	}
	return what, strings.TrimSpace(who), true
}

func checkInput(in string, dev Device, vp *Viewport) error {
	touch := dev.Touch
	if vp != nil && vp.Touch != nil {
		touch = *vp.Touch
	}
	switch in {
	case "mouse", "drag", "keyboard":
		return nil
	case "touch", "touch-drag":
		if !touch {
			return fmt.Errorf("input %q needs a touch device", in)
		}
		return nil
	}
	return fmt.Errorf("unknown input %q (mouse, drag, touch, touch-drag, keyboard)", in)
}

// path resolves a file named by the scenario.
func (sc *Scenario) path(name string) string {
	if filepath.IsAbs(name) || sc.File == "" {
		return name
	}
	return filepath.Join(filepath.Dir(sc.File), name)
}
