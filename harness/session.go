package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/sdk"
)

// session is one run of a scenario: its browsers and where it reports.
type session struct {
	sc     *Scenario
	name   string // the scenario's, with its engine when not Chromium
	dir    string // where this attempt's files go
	before int    // the step to picture every actor before (a retry's)
	// shotsBefore are those pictures.
	shotsBefore []string
	engine      string // the run's engine: actors without a browser of their own use it
	share       *share
	cfg         *Config
	client      *client.Client
	browsers    map[string]*browser
	// roundTrip is the notation a room's record is read in.
	roundTrip string
	// shots are the screenshot steps' files.
	shots []string
	// steps are the steps played so far, with their times.
	steps []StepResult
}

// StepResult is how one step of a scenario went.
type StepResult struct {
	Step     int // from 1
	Line     int
	What     string
	Duration time.Duration
	Err      string // empty when it passed
}

// StepError is a failure of one step, with where it is in the scenario file
// and, in a scenario of several actors, whose step it was.
type StepError struct {
	Step int // from 1
	Line int
	What string // the step, briefly
	// Actor and Engine are the step's actor and their browser engine,
	// set when the scenario has several actors.
	Actor, Engine string
	Err           error
}

func (e *StepError) Error() string {
	return e.where() + ": " + e.Err.Error()
}

// where is "step 4 (line 15, expect), actor guest (firefox)".
func (e *StepError) where() string {
	w := fmt.Sprintf("step %d (line %d, %s)", e.Step, e.Line, e.What)
	if e.Actor != "" {
		w += fmt.Sprintf(": actor %s (%s)", e.Actor, e.Engine)
	}
	return w
}

func (e *StepError) Unwrap() error { return e.Err }

func (s *session) browser(ctx context.Context, name string) (*browser, error) {
	if name == "" {
		name = s.sc.Actors[0].Name
	}
	if b, ok := s.browsers[name]; ok {
		return b, nil
	}
	for _, a := range s.sc.Actors {
		if a.Name == name {
			e, exe := s.engineExe(a)
			b, err := launch(ctx, a, e, exe, s.share, s.cfg)
			if err != nil {
				return nil, err
			}
			s.browsers[name] = b
			return b, nil
		}
	}
	return nil, fmt.Errorf("no actor %q", name)
}

// engineExe is an actor's browser engine and its binary.
func (s *session) engineExe(a Actor) (string, string) {
	e := a.Browser
	if e == "" {
		e = s.engine
	}
	switch e {
	case "firefox":
		return e, s.cfg.Firefox
	case "webkit":
		return e, s.cfg.WebKit
	}
	return e, s.cfg.Chromium
}

// prepare takes, before the scenario's time starts, the browser processes
// its actors will need (starting those the run keeps none of): a browser's
// start is bounded by its own limit, not by the scenario's timeout.
func (s *session) prepare(ctx context.Context) error {
	for _, a := range s.sc.Actors {
		e, exe := s.engineExe(a)
		if err := prepare(ctx, a, e, exe, s.share, s.cfg); err != nil {
			return err
		}
	}
	return nil
}

// engineOf is the browser engine of an actor.
func (s *session) engineOf(name string) string {
	if b := s.browsers[name]; b != nil {
		return b.engine
	}
	for _, a := range s.sc.Actors {
		if a.Name == name && a.Browser != "" {
			return a.Browser
		}
	}
	return s.engine
}

// run plays the steps in order and stops at the first failure.
func (s *session) run(ctx context.Context) error {
	for i := range s.sc.Steps {
		st := &s.sc.Steps[i]
		if i+1 == s.before {
			s.shotsBefore = s.pictures(ctx, "-before")
		}
		start := time.Now()
		err := s.step(ctx, st)
		sr := StepResult{Step: i + 1, Line: st.line, What: st.describe(), Duration: time.Since(start)}
		if err != nil {
			sr.Err = err.Error()
		}
		s.steps = append(s.steps, sr)
		if err != nil {
			se := &StepError{Step: i + 1, Line: st.line, What: st.describe(), Err: err}
			// A moves step of no actor names, in its error, the actor
			// of the move that failed.
			if len(s.sc.Actors) > 1 && (st.Actor != "" || len(st.Moves) == 0) {
				se.Actor = st.Actor
				if se.Actor == "" {
					se.Actor = s.sc.Actors[0].Name
				}
				se.Engine = s.engineOf(se.Actor)
			}
			return se
		}
	}
	// Any uncaught exception fails the scenario, as in chromedp's own tests.
	var errs []string
	for _, a := range s.sc.Actors {
		if b := s.browsers[a.Name]; b != nil {
			for _, e := range b.errors() {
				errs = append(errs, a.Name+" "+e)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("JavaScript errors: %s", strings.Join(errs, "; "))
	}
	return nil
}

func (st *Step) describe() string {
	switch {
	case st.Open != "":
		return "open " + st.Open
	case st.Press != "":
		return "press " + st.Press
	case st.Move != "":
		return "move " + st.Move
	case len(st.Moves) > 0:
		return fmt.Sprintf("moves (%d)", len(st.Moves))
	case st.Attempt != "":
		return "attempt " + st.Attempt
	case st.Replay != nil:
		return "replay " + st.Replay.File
	case st.Reload:
		return "reload"
	case st.Offline != nil:
		return fmt.Sprintf("offline %v", *st.Offline)
	case st.Network != "":
		return "network " + st.Network
	case st.Wait != 0:
		return "wait " + time.Duration(st.Wait).String()
	case st.Screenshot != "":
		return "screenshot " + st.Screenshot
	case st.Script != "":
		return "script"
	case st.Fill != nil:
		return "fill " + st.Fill.Field
	case st.Select != nil:
		return "select " + st.Select.Field
	case st.Expect != nil:
		return "expect"
	}
	return "?"
}

func (s *session) step(ctx context.Context, st *Step) error {
	b, err := s.browser(ctx, st.Actor)
	if err != nil {
		return err
	}
	// An invitation or room of an actor is read before a new tab is
	// opened: "room of me" in a second tab is the room of the first.
	var url string
	if what, who, ok := openOf(st.Open); ok {
		if url, err = s.roomURL(ctx, what, who); err != nil {
			return err
		}
	}
	t, err := b.tab(st.Tab)
	if err != nil {
		return err
	}
	how := b.actor.Input
	if st.Input != "" {
		how = st.Input
	}
	switch {
	case url != "":
		if err := navigate(t, url); err != nil {
			return err
		}
		return s.settle(ctx, t)
	case st.Open == "room":
		return s.openRoom(ctx, t, how, st.Settings)
	case st.Open != "":
		return s.open(ctx, t, how, st.Open)
	case st.Press != "":
		if err := s.pressButton(ctx, t, how, buttonSelector(st.Press)); err != nil {
			return err
		}
		// Let the page run what the press queued (a dialog's close event)
		// before the next step acts: the browser handles input before
		// queued tasks, and the harness presses faster than people do.
		// A press that navigates has no page to wait for.
		wctx, cancel := context.WithTimeout(ctx, s.cfg.scaled(2*time.Second))
		defer cancel()
		_ = t.p.exec(wctx, jsNextTask)
		return nil
	case st.Move != "":
		return s.move(ctx, b, t, st.Move, how, true)
	case st.Attempt != "":
		return s.move(ctx, b, t, st.Attempt, how, false)
	case len(st.Moves) > 0:
		for i, m := range st.Moves {
			mb, mt, mhow := b, t, how
			if st.Actor == "" {
				// In a room, each move is made by the actor seated to
				// move.
				if mb, mt, err = s.seatedToMove(ctx, b, t); err != nil {
					return fmt.Errorf("move %d of %d: %w", i+1, len(st.Moves), err)
				}
				if mb != b && st.Input == "" {
					mhow = mb.actor.Input
				}
			}
			if err := s.move(ctx, mb, mt, m, mhow, true); err != nil {
				if mb != b {
					return fmt.Errorf("move %d of %d, by %s (%s): %w", i+1, len(st.Moves), mb.actor.Name, mb.engine, err)
				}
				return fmt.Errorf("move %d of %d: %w", i+1, len(st.Moves), err)
			}
		}
		return nil
	case st.Replay != nil:
		ms, _, err := s.recordMoves(ctx, st.Replay)
		if err != nil {
			return err
		}
		// A resignation is a button, not a move on the board: the
		// scenario presses it if it wants to.
		ms = slices.DeleteFunc(ms, func(m string) bool { return m == string(sdk.Resign) })
		for i, m := range ms {
			if err := s.move(ctx, b, t, m, how, true); err != nil {
				return fmt.Errorf("record move %d of %d: %w", i+1, len(ms), err)
			}
		}
		return nil
	case st.Reload:
		if err := t.p.reload(ctx); err != nil {
			return err
		}
		return s.settle(ctx, t)
	case st.Offline != nil:
		return b.setOffline(*st.Offline)
	case st.Network != "":
		if err := b.setCut(st.Network == "cut"); err != nil {
			return err
		}
		if st.Network == "restore" {
			return nil
		}
		// The step ends once every room page of the actor has seen its
		// socket go and laid itself out again (its notice above the
		// board): a gesture made before that lands where the board was.
		for _, t := range b.tabs {
			if err := s.poll(ctx, fmt.Sprintf("tab %d never noticed the cut (body[data-conn] still open)", t.n), func() (bool, error) {
				return eval[bool](t, jsCutNoticed)
			}); err != nil {
				return err
			}
			if err := t.p.exec(ctx, jsNextFrame); err != nil {
				return err
			}
		}
		return nil
	case st.Wait != 0:
		select {
		case <-time.After(time.Duration(st.Wait)):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	case st.Screenshot != "":
		// A screenshot has the step's time, as any wait of a step.
		sctx, cancel := context.WithTimeout(ctx, s.cfg.StepTimeout)
		defer cancel()
		png, err := t.screenshot(sctx)
		if err != nil {
			return fmt.Errorf("screenshot: %w", err)
		}
		dir := s.dir
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		p := filepath.Join(dir, st.Screenshot+".png")
		if err := os.WriteFile(p, png, 0o644); err != nil {
			return err
		}
		s.shots = append(s.shots, p)
		return nil
	case st.Script != "":
		return t.p.exec(ctx, st.Script)
	case st.Fill != nil:
		return s.fill(ctx, t, st.Fill)
	case st.Select != nil:
		return s.choose(ctx, t, how, st.Select)
	case st.Expect != nil:
		return s.expect(ctx, b, t, st.Expect)
	}
	return errors.New("empty step")
}

// open loads a page and waits until it is ready to be used.
func (s *session) open(ctx context.Context, t *tab, how, page string) error {
	if page == "room" {
		return s.openRoom(ctx, t, how, nil)
	}
	path, ok := Pages[page]
	if !ok {
		if !strings.HasPrefix(page, "/") {
			return fmt.Errorf("no page %q: name one of home, landing, play, or give a path from /", page)
		}
		path = page
	}
	path = strings.NewReplacer("{lang}", s.sc.Lang, "{variant}", s.sc.Variant).Replace(path)
	if err := navigate(t, s.client.Base()+path); err != nil {
		return err
	}
	if page == "play" || page == "computer" {
		// A play page that shows no board (an unknown variant, a
		// broken template) must not pass as opened.
		board, err := eval[bool](t, `!!document.querySelector('#board-data')`)
		if err != nil {
			return err
		}
		if !board {
			return fmt.Errorf("%s has no board (#board-data)", path)
		}
	}
	return s.settle(ctx, t)
}

// navigate loads url in the tab; an HTTP error status is a failure.
func navigate(t *tab, url string) error {
	status, err := t.p.navigate(t.ctx, url)
	if err != nil {
		return err
	}
	if status >= 400 {
		return fmt.Errorf("open %s: HTTP %d", url, status)
	}
	return nil
}

// seatedToMove is, when t is a room page, the actor whose page holds the
// seat to move (their current tab); else b and t themselves.
func (s *session) seatedToMove(ctx context.Context, b *browser, t *tab) (*browser, *tab, error) {
	snap, err := s.snapshot(t, false)
	if err != nil || snap.Room == "" {
		return b, t, err
	}
	view, _, err := s.roomView(ctx, snap.Room)
	if err != nil || len(view.ToMove) == 0 {
		return b, t, err
	}
	want := fmt.Sprint(view.ToMove[0])
	for _, a := range s.sc.Actors {
		o := s.browsers[a.Name]
		if o == nil {
			continue
		}
		ot := o.tabs[o.current]
		seat, err := eval[string](ot, `location.pathname.includes('/room/') ? (document.body.dataset.seat || '') : ''`)
		if err == nil && seat == want {
			return o, ot, nil
		}
	}
	return nil, nil, fmt.Errorf("no actor's page holds seat %s, which is to move", want)
}

// openRoom creates a room as a person does: the landing page's Play with a
// friend, by the input method, and for a game with room settings (Yonin)
// the settings asked (the given ones, the others as they are) and Create;
// it waits until the room's page is ready.
func (s *session) openRoom(ctx context.Context, t *tab, how string, settings map[string]string) error {
	if err := s.open(ctx, t, how, "landing"); err != nil {
		return err
	}
	if err := s.pressButton(ctx, t, how, Buttons["play-friend"]); err != nil {
		return err
	}
	asked := false
	if err := s.poll(ctx, "neither the room page nor its settings opened after Play with a friend", func() (bool, error) {
		onRoom, _ := eval[bool](t, `location.pathname.includes('/room/')`)
		asked, _ = eval[bool](t, jsRoomSettingsOpen)
		return onRoom || asked, nil
	}); err != nil {
		return err
	}
	if len(settings) > 0 && !asked {
		return errors.New("settings were given, but Play with a friend asked for none")
	}
	if asked {
		for k, v := range settings {
			ok, err := eval[bool](t, fmt.Sprintf(jsRoomSetting, k, v))
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("the room settings have no %q that takes %q", k, v)
			}
		}
		if err := s.pressButton(ctx, t, how, Buttons["room-create"]); err != nil {
			return err
		}
	}
	if err := s.poll(ctx, "the room page never opened after Play with a friend", func() (bool, error) {
		// The landing page may be replaced while this runs.
		ok, _ := eval[bool](t, `location.pathname.includes('/room/') && !!document.querySelector('#board-data')`)
		return ok, nil
	}); err != nil {
		return err
	}
	return s.settle(ctx, t)
}

// roomURL is the invitation link another actor's room page shows
// (what "invite"), or the address of the room it is in ("room").
func (s *session) roomURL(ctx context.Context, what, who string) (string, error) {
	b := s.browsers[who]
	if b == nil {
		return "", fmt.Errorf("%s has opened no page yet", who)
	}
	o := b.tabs[b.current]
	if what == "room" {
		url, err := eval[string](o, `location.href`)
		if err == nil && !strings.Contains(url, "/room/") {
			err = fmt.Errorf("%s is not on a room page (%s)", who, url)
		}
		return url, err
	}
	var url string
	err := s.poll(ctx, fmt.Sprintf("%s's page shows no invitation (%s)", who, selInvite), func() (bool, error) {
		var err error
		url, err = eval[string](o, jsInvite)
		return url != "", err
	})
	return url, err
}

// poll calls ok until it holds, fails, or the step's time is up.
func (s *session) poll(ctx context.Context, what string, ok func() (bool, error)) error {
	deadline := time.Now().Add(s.cfg.StepTimeout)
	for {
		done, err := ok()
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New(what)
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// settle waits until a play page has shown its game; other pages are ready
// once loaded.
func (s *session) settle(ctx context.Context, t *tab) error {
	isPlay, err := eval[bool](t, `!!document.querySelector('#board-data')`)
	if err != nil || !isPlay {
		return err
	}
	_, err = s.waitReady(ctx, t)
	return err
}

func (s *session) waitReady(ctx context.Context, t *tab) (snapshot, error) {
	deadline := time.Now().Add(s.cfg.StepTimeout)
	for {
		snap, err := s.snapshot(t, false)
		if err == nil && snap.Ready {
			return snap, nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("the page never became ready (%s)", selPlayReady)
			}
			return snap, err
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return snap, ctx.Err()
		}
	}
}

// waitIdle waits until the page is ready and has no move or suggestion
// request in flight (the computer has moved).
func (s *session) waitIdle(ctx context.Context, t *tab) (snapshot, error) {
	deadline := time.Now().Add(s.cfg.StepTimeout)
	for {
		snap, err := s.waitReady(ctx, t)
		if err != nil || !snap.Busy {
			return snap, err
		}
		if time.Now().After(deadline) {
			return snap, fmt.Errorf("the page is still busy (body[data-busy]) after %v", s.cfg.StepTimeout)
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return snap, ctx.Err()
		}
	}
}

// pressButton activates a button with the input method: a click, a tap, or
// the keyboard (Tab onto it, Enter).
func (s *session) pressButton(ctx context.Context, t *tab, how, sel string) error {
	sel, err := s.locate(ctx, t, sel)
	if err != nil {
		return err
	}
	if err := s.waitVisible(ctx, t, sel); err != nil {
		return err
	}
	if how == "keyboard" {
		if err := tabTo(t, sel); err != nil {
			return err
		}
		return t.key("Enter")
	}
	p, err := center(t, sel)
	if err != nil {
		return err
	}
	return s.press(t, how, p)
}

func (s *session) waitVisible(ctx context.Context, t *tab, sel string) error {
	deadline := time.Now().Add(s.cfg.StepTimeout)
	for {
		ok, err := eval[bool](t, jsCall(jsVisible, sel))
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is not shown", sel)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// choose picks a value: in a <select>, as the page's own code would see it;
// in a group of radio buttons, by pressing the value's button (its label)
// with the input method, or with the arrow keys.
func (s *session) choose(ctx context.Context, t *tab, how string, f *Fill) error {
	sel := fieldSelector(f.Field)
	isSelect, err := eval[bool](t, jsCall(`((sel) => document.querySelector(sel)?.tagName === 'SELECT')`, sel))
	if err != nil {
		return err
	}
	if isSelect {
		return t.p.exec(ctx, jsCall(jsSetValue, sel, f.Value))
	}
	if err := s.waitVisible(ctx, t, sel); err != nil {
		return err
	}
	type radio struct {
		Sel     string   `json:"sel"`
		Checked bool     `json:"checked"`
		Have    []string `json:"have"`
		// Behind: the value comes before the focused (or checked)
		// button in the group.
		Behind bool `json:"behind"`
	}
	r, err := eval[radio](t, jsCall(jsRadio, sel, f.Value))
	if err != nil {
		return err
	}
	if r.Sel == "" {
		return fmt.Errorf("%s has no choice %q (have %s)", sel, f.Value, strings.Join(r.Have, ", "))
	}
	if how == "keyboard" {
		// Tab reaches the group's checked button; the arrows move the
		// choice.
		if err := tabTo(t, sel+` input[type="radio"]`); err != nil {
			return err
		}
		for range 20 {
			if r, err = eval[radio](t, jsCall(jsRadio, sel, f.Value)); err != nil || r.Checked {
				return err
			}
			// Towards the value, as a person does: WebKit does not
			// go round the group's end as the others do.
			key := "ArrowDown"
			if r.Behind {
				key = "ArrowUp"
			}
			if err := t.key(key); err != nil {
				return err
			}
		}
		return fmt.Errorf("the arrow keys never chose %q in %s", f.Value, sel)
	}
	if err := s.pressButton(ctx, t, how, r.Sel); err != nil {
		return err
	}
	if r, err = eval[radio](t, jsCall(jsRadio, sel, f.Value)); err != nil {
		return err
	}
	if !r.Checked {
		return fmt.Errorf("pressing %s did not choose %q", r.Sel, f.Value)
	}
	return nil
}

func (s *session) fill(ctx context.Context, t *tab, f *Fill) error {
	text := f.Text
	if f.File != "" {
		b, err := readFile(s.sc.path(f.File))
		if err != nil {
			return err
		}
		text = string(b)
	}
	sel := fieldSelector(f.Field)
	if err := s.waitVisible(ctx, t, sel); err != nil {
		return err
	}
	// SetValue, then an input event: typing a whole record key by key
	// would test the keyboard driver, not the page.
	if err := t.p.exec(ctx, jsCall(jsSetValue, sel, text)); err != nil {
		return err
	}
	return t.p.exec(ctx, jsCall(`((sel) => { document.querySelector(sel).dispatchEvent(new Event('input', {bubbles: true})) })`, sel))
}

// expect polls the page until every check of e holds or its time is up, and
// then reports what still differs.
func (s *session) expect(ctx context.Context, b *browser, t *tab, e *Expect) error {
	within := s.cfg.StepTimeout
	if e.Within > 0 {
		within = s.cfg.scaled(time.Duration(e.Within))
	}
	if e.Export != nil {
		// The export is done once, through the panel; the text is then
		// compared.
		if err := s.checkExport(ctx, t, e.Export, within); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(within)
	for {
		diffs, err := s.check(ctx, b, t, e)
		if err == nil && len(diffs) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return err
			}
			return errors.New(strings.Join(diffs, "; "))
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// check returns what differs from e now.
func (s *session) check(ctx context.Context, b *browser, t *tab, e *Expect) ([]string, error) {
	snap, err := s.snapshot(t, true)
	if err != nil {
		return nil, err
	}
	var d []string
	differ := func(what string, want, got any) {
		if !reflect.DeepEqual(want, got) {
			d = append(d, difference(what, want, got))
		}
	}
	if e.Status != "" {
		differ("status", e.Status, snap.Status)
	}
	if e.Ply != nil {
		differ("ply", *e.Ply, snap.Ply)
	}
	if e.MoveList != nil {
		differ("move list", e.MoveList, nonNil(snap.MoveList))
	}
	if e.Message != "" && !strings.Contains(snap.Text, e.Message) {
		d = append(d, fmt.Sprintf("no visible message %q on the page", e.Message))
	}
	if e.NoMessage != "" && strings.Contains(snap.Text, e.NoMessage) {
		d = append(d, fmt.Sprintf("the page shows %q", e.NoMessage))
	}
	for _, v := range []struct {
		name string
		want bool
	}{{e.Visible, true}, {e.Hidden, false}} {
		if v.name == "" {
			continue
		}
		sel, err := locateNow(t, buttonSelector(v.name))
		if err != nil {
			return nil, err
		}
		ok := false
		if sel != "" {
			if ok, err = eval[bool](t, jsCall(jsVisible, sel)); err != nil {
				return nil, err
			}
		}
		if ok != v.want {
			d = append(d, fmt.Sprintf("%s: want shown %v, got %v", v.name, v.want, ok))
		}
	}
	if e.Busy != nil {
		differ("busy", *e.Busy, snap.Busy)
	}
	for _, k := range slices.Sorted(maps.Keys(e.Data)) {
		got, ok := snap.Data[k]
		if !ok {
			got = "(unset)"
		}
		differ("data-"+k, e.Data[k], got)
	}
	if e.Notice != "" {
		ok, err := eval[bool](t, jsCall(jsVisible, noticeSelector(e.Notice)))
		if err != nil {
			return nil, err
		}
		if !ok {
			d = append(d, fmt.Sprintf("no notice or status with key %q is shown (shown: %s)", e.Notice, strings.Join(snap.Keys, ", ")))
		}
	}
	if e.NoJSErrors {
		if errs := b.errors(); len(errs) > 0 {
			d = append(d, "JavaScript errors: "+strings.Join(errs, "; "))
		}
	}
	if e.ToMove != nil || e.Position != "" || e.Moves != nil || e.Result != nil || e.Record != nil {
		view, _, err := s.gameView(ctx, snap)
		if err != nil {
			return nil, err
		}
		if e.ToMove != nil {
			differ("to move", e.ToMove, seats(view.ToMove))
		}
		if e.Position != "" {
			differ("position", e.Position, view.Position)
		}
		if e.Moves != nil {
			differ("moves", e.Moves, historyMoves(view))
		}
		if len(snap.MoveList) != len(view.History) {
			d = append(d, fmt.Sprintf("the move list shows %d moves, the game has %d", len(snap.MoveList), len(view.History)))
		}
		if r := e.Result; r != nil {
			if view.Result == nil {
				d = append(d, fmt.Sprintf("result: want %+v, the game has none (status %s)", *r, view.Status))
			} else {
				if r.Winners != nil {
					differ("winners", r.Winners, seats(view.Result.Winners))
				}
				if r.Reason != "" {
					differ("result reason", r.Reason, view.Result.Reason)
				}
				if r.Draw != nil {
					differ("draw", *r.Draw, view.Result.Draw)
				}
			}
		}
		if e.Record != nil {
			ms, rv, err := s.recordMoves(ctx, e.Record)
			if err != nil {
				return nil, err
			}
			got := historyMoves(view)
			if i := firstDiff(ms, got); i >= 0 {
				d = append(d, fmt.Sprintf("the game differs from %s at move %d: record %s, page %s", e.Record.File, i+1, at(ms, i), at(got, i)))
			}
			differ("position at the end of "+e.Record.File, rv.Position, view.Position)
		}
	}
	return d, nil
}

// checkExport exports through the moves panel (choose the format, press
// Export) and compares the text shown.
func (s *session) checkExport(ctx context.Context, t *tab, x *ExportExpect, within time.Duration) error {
	msg, err := eval[string](t, jsCall(jsOpenExport, x.Format))
	if err != nil {
		return err
	}
	if msg != "" {
		return errors.New(msg)
	}
	if err := s.pressButton(ctx, t, "mouse", Buttons["export"]); err != nil {
		return err
	}
	var text string
	deadline := time.Now().Add(within)
	for text == "" {
		if text, err = eval[string](t, jsExportText); err != nil {
			return err
		}
		if text == "" && time.Now().After(deadline) {
			return fmt.Errorf("export %s: no text shown", x.Format)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var d []string
	for _, c := range x.Contains {
		if !strings.Contains(text, c) {
			d = append(d, fmt.Sprintf("export %s lacks %q", x.Format, c))
		}
	}
	want := x.Equals
	if x.File != "" {
		b, err := readFile(s.sc.path(x.File))
		if err != nil {
			return err
		}
		want = string(b)
	}
	if want != "" && normalize(want) != normalize(text) {
		d = append(d, fmt.Sprintf("export %s: want\n%s\ngot\n%s", x.Format, want, text))
	}
	if len(d) > 0 {
		return errors.New(strings.Join(d, "; "))
	}
	return nil
}

var spaceRun = regexp.MustCompile(`[ \t]+\n`)

// normalize ignores line endings and trailing spaces, which editors and
// checkouts change.
func normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.TrimSpace(spaceRun.ReplaceAllString(s, "\n"))
}

func historyMoves(v sdk.View) []string {
	ms := []string{}
	for _, h := range v.History {
		ms = append(ms, string(h.Move))
	}
	return ms
}

func seats(ss []sdk.Seat) []int {
	out := []int{}
	for _, s := range ss {
		out = append(out, int(s))
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func firstDiff(a, b []string) int {
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return -1
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(none)"
}

// difference says how want and got differ. Two lists longer than show
// prints are named by their first differing index and the items there, as
// both would otherwise be cut the same way.
func difference(what string, want, got any) string {
	w, wok := want.([]string)
	g, gok := got.([]string)
	if wok && gok && (len(w) > 12 || len(g) > 12) {
		i := firstDiff(w, g)
		n := fmt.Sprintf("%d items each", len(w))
		if len(w) != len(g) {
			n = fmt.Sprintf("want %d items, got %d", len(w), len(g))
		}
		return fmt.Sprintf("%s: differ at index %d: want %s, got %s (%s)", what, i, quoted(w, i), quoted(g, i), n)
	}
	return fmt.Sprintf("%s: want %v, got %v", what, show(want), show(got))
}

func quoted(s []string, i int) string {
	if i < len(s) {
		return fmt.Sprintf("%q", s[i])
	}
	return "(none)"
}

func show(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case []string:
		if len(v) > 12 {
			return fmt.Sprintf("%q … (%d in all)", v[:12], len(v))
		}
		return fmt.Sprintf("%q", v)
	}
	return fmt.Sprint(v)
}

func readFile(path string) ([]byte, error) { return os.ReadFile(filepath.Clean(path)) }

// artifacts writes, for a failed scenario, a screenshot of every tab of
// every actor, every actor's console, and what the host's log gained since
// logFrom (host.log); it returns their paths, and says what it could not
// write and why.
func (s *session) artifacts(ctx context.Context, dir string, logFrom int64) (out, missing []string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, []string{fmt.Sprintf("every artifact: %v", err)}
	}
	names := make([]string, 0, len(s.browsers))
	for n := range s.browsers {
		names = append(names, n)
	}
	slices.Sort(names)
	write := func(name string, b []byte) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			missing = append(missing, fmt.Sprintf("%s: %v", name, err))
			return
		}
		out = append(out, p)
	}
	for _, n := range names {
		b := s.browsers[n]
		for _, t := range b.tabs {
			// Each picture has a step's time, within the artifacts'.
			sctx, cancel := context.WithTimeout(ctx, s.cfg.StepTimeout)
			png, err := t.screenshot(sctx)
			cancel()
			name := fmt.Sprintf("%s-tab%d.png", n, t.n)
			if err != nil {
				missing = append(missing, fmt.Sprintf("%s: no screenshot of %s's tab %d (%s): %v", name, n, t.n, b.engine, err))
				continue
			}
			write(name, png)
		}
		write(n+"-console.txt", []byte(b.consoleText()))
		for _, t := range b.tabs {
			// The room's messages as this page sent and heard them.
			msgs, err := eval[[]socketMessage](&tab{n: t.n, p: t.p, ctx: ctx}, jsSocketMessages)
			if err != nil {
				missing = append(missing, fmt.Sprintf("%s-tab%d-socket.txt: %v", n, t.n, err))
				continue
			}
			if len(msgs) > 0 {
				write(fmt.Sprintf("%s-tab%d-socket.txt", n, t.n), socketText(msgs))
			}
		}
	}
	if s.cfg.HostLog != "" {
		if b, err := readFrom(s.cfg.HostLog, logFrom); err != nil {
			missing = append(missing, fmt.Sprintf("host.log: %v", err))
		} else {
			write("host.log", b)
		}
	}
	return out, missing
}

// pictures saves a screenshot of every actor's every tab as
// ACTOR-tabN<suffix>.png and returns the files.
func (s *session) pictures(ctx context.Context, suffix string) []string {
	if os.MkdirAll(s.dir, 0o755) != nil {
		return nil
	}
	var out []string
	for _, a := range s.sc.Actors {
		b := s.browsers[a.Name]
		if b == nil {
			continue
		}
		for _, t := range b.tabs {
			sctx, cancel := context.WithTimeout(ctx, s.cfg.StepTimeout)
			png, err := t.screenshot(sctx)
			cancel()
			if err != nil {
				continue
			}
			p := filepath.Join(s.dir, fmt.Sprintf("%s-tab%d%s.png", a.Name, t.n, suffix))
			if os.WriteFile(p, png, 0o644) == nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// readFrom reads a file from an offset to its end.
func readFrom(p string, off int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// pause keeps a failed scenario's browsers open until ctx ends, saying how
// to attach to each.
func (s *session) pause(ctx context.Context, r Result) {
	var b strings.Builder
	fmt.Fprintf(&b, "PAUSED %s: %v\n", r.Name(), r.Err)
	for _, a := range s.sc.Actors {
		if br := s.browsers[a.Name]; br != nil {
			fmt.Fprintf(&b, "  %s: %s\n", a.Name, br.inst.attach())
		}
	}
	b.WriteString("  the browsers stay open until the run is interrupted (Ctrl-C)\n")
	io.WriteString(s.cfg.Log, b.String())
	<-ctx.Done()
}

func (s *session) close() {
	for _, b := range s.browsers {
		b.close()
	}
	s.share.close()
}
