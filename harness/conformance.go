package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/banmen/banmen/harness/chromium"
	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/sdk"
)

// Conformance is the browser conformance check of one variant: seeded random
// games of legal moves played through the real board, on one device, by the
// input methods of the devices in turn, every move checked against the
// site's API. It proves that whatever moves the variant's Views list (board
// moves, promotions, drops from hands and from an unlimited supply) can be
// made by people, knowing nothing of the rules; actions are pressed as their
// buttons.
type Conformance struct {
	// Variant is the ID of the variant; the site must show it.
	Variant string
	// Lang is the pages' language ("en" if empty).
	Lang string
	// Games is the number of games (default 2); game i is played on
	// Devices[i % len(Devices)].
	Games int
	// MaxPlies ends a game that has not ended by then (default 60).
	MaxPlies int
	// Seed chooses the moves: the same seed, the same games.
	Seed uint64
	// Devices are the devices and their input methods, in turn per move
	// (default: a desktop with mouse, keyboard and drag; a phone with touch
	// and touch-drag).
	Devices []ConformanceDevice
	// Timeout bounds the whole check (default 3 minutes).
	Timeout time.Duration
	// Engine is the browser: "chromium" (the default) or "firefox"
	// (Config.Firefox, else FindFirefox).
	Engine string
}

// ConformanceDevice is a device class of Devices and the inputs used on it.
type ConformanceDevice struct {
	Device string
	Inputs []string
}

// rawKey matches an i18n key shown as itself on the page.
var rawKey = regexp.MustCompile(`\b(?:variant|seat|piece|result|notice|action|error|option|ui|moves|board|notation)\.[a-z0-9_]+(?:\.[a-z0-9_]+)*\b`)

// CheckConformance runs the browser conformance check c against cfg.Base.
// A line per game goes to cfg.Log (when set): its plies by kind of move.
// Its Result names the games' plies in the error of a failure, with the
// screenshots and consoles in cfg.Out.
func CheckConformance(ctx context.Context, cfg Config, c Conformance) Result {
	if c.Lang == "" {
		c.Lang = "en"
	}
	if c.Games <= 0 {
		c.Games = 2
	}
	if c.MaxPlies <= 0 {
		c.MaxPlies = 60
	}
	if c.Timeout <= 0 {
		c.Timeout = 3 * time.Minute
	}
	if len(c.Devices) == 0 {
		c.Devices = []ConformanceDevice{
			{Device: "desktop", Inputs: []string{"mouse", "keyboard", "drag"}},
			{Device: "phone", Inputs: []string{"touch", "touch-drag"}},
		}
	}
	if cfg.StepTimeout == 0 {
		cfg.StepTimeout = 10 * time.Second
	}
	cfg.StepTimeout = cfg.scaled(cfg.StepTimeout)
	sc := &Scenario{Name: "conformance " + c.Variant, Variant: c.Variant, Lang: c.Lang, Timeout: Duration(c.Timeout)}
	for i := range c.Games {
		d := c.Devices[i%len(c.Devices)]
		sc.Actors = append(sc.Actors, Actor{Name: fmt.Sprintf("game%d", i+1), Device: d.Device, Input: d.Inputs[0]})
	}
	r := Result{Scenario: sc}
	if c.Engine == "" {
		c.Engine = "chromium"
	}
	var err error
	switch {
	case c.Engine == "chromium" && cfg.Chromium == "":
		cfg.Chromium, err = chromium.Find("", os.Getenv)
	case c.Engine == "firefox" && cfg.Firefox == "":
		cfg.Firefox, err = FindFirefox("", os.Getenv)
	case c.Engine == "webkit" && cfg.WebKit == "":
		cfg.WebKit, err = FindWebKit("", os.Getenv)
	case engines[c.Engine] == nil:
		err = fmt.Errorf("no browser engine %q (%s)", c.Engine, strings.Join(EngineNames(), ", "))
	}
	if err != nil {
		r.Err = err
		return r
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, cfg.scaled(c.Timeout))
	defer cancel()
	if cfg.Browsers == nil {
		cfg.Browsers = NewBrowsers()
		defer cfg.Browsers.Close()
	}
	s := &session{sc: sc, name: sc.Name, dir: cfg.Out, engine: c.Engine, share: newShare(cfg.Browsers), cfg: &cfg, client: client.New(cfg.Base, nil), browsers: map[string]*browser{}}
	defer s.close()
	rnd := rand.New(rand.NewPCG(c.Seed, 0x62616e6d656e))
	for i, a := range sc.Actors {
		if err = s.conformanceGame(ctx, a.Name, c.Devices[i%len(c.Devices)].Inputs, c.MaxPlies, rnd); err != nil {
			err = fmt.Errorf("%s (%s): %w", a.Name, a.Device, err)
			break
		}
	}
	r.Duration = time.Since(start)
	if err != nil {
		r.Err = err
		if cfg.Out != "" {
			actx, acancel := context.WithTimeout(context.Background(), cfg.scaled(30*time.Second))
			r.Artifacts, r.Missing = s.artifacts(actx, cfg.Out, 0)
			acancel()
		}
		return r
	}
	r.Passed = true
	return r
}

// conformanceGame plays one random game on the actor's play page.
func (s *session) conformanceGame(ctx context.Context, actor string, inputs []string, maxPlies int, rnd *rand.Rand) error {
	b, err := s.browser(ctx, actor)
	if err != nil {
		return err
	}
	t, err := b.tab(0)
	if err != nil {
		return err
	}
	if err := s.open(ctx, t, inputs[0], "play"); err != nil {
		return err
	}
	kinds := map[sdk.MoveKind]int{}
	for ply := 0; ; ply++ {
		snap, err := s.waitIdle(ctx, t)
		if err != nil {
			return fmt.Errorf("ply %d: %w", ply, err)
		}
		view, st, err := s.gameView(ctx, snap)
		if err != nil {
			return fmt.Errorf("ply %d: %w", ply, err)
		}
		if snap.Ply != view.Ply {
			return fmt.Errorf("ply %d: the page shows ply %d, its saved game is at %d", ply, snap.Ply, view.Ply)
		}
		moves := view.Legal
		if view.Status != sdk.Playing || len(moves) == 0 || ply >= maxPlies {
			if s.cfg.Log != nil {
				fmt.Fprintf(s.cfg.Log, "conformance %s %s: %d plies (%d moves, %d drops, %d actions), %s\n",
					s.sc.Variant, actor, ply, kinds[sdk.BoardMove], kinds[sdk.DropMove], kinds[sdk.Action], view.Status)
			}
			return s.conformanceEnd(ctx, b, t, view)
		}
		m := moves[rnd.IntN(len(moves))]
		kinds[m.Kind]++
		how := inputs[ply%len(inputs)]
		want, err := s.client.Play(ctx, s.sc.Variant, st, m.Seat, m.Move)
		if err != nil {
			return fmt.Errorf("ply %d: the API refuses the listed move %q: %w", ply, m.Move, err)
		}
		if m.Kind == sdk.Action {
			err = s.action(ctx, t, how, view, m)
		} else {
			err = s.move(ctx, b, t, string(m.Move), how, true)
		}
		if err != nil {
			return fmt.Errorf("ply %d: %w", ply, err)
		}
		snap, err = s.waitIdle(ctx, t)
		if err != nil {
			return fmt.Errorf("ply %d, after %s by %s: %w", ply, m.Move, how, err)
		}
		got, _, err := s.gameView(ctx, snap)
		if err != nil {
			return fmt.Errorf("ply %d, after %s by %s: %w", ply, m.Move, how, err)
		}
		if got.Ply != want.View.Ply || got.Position != want.View.Position {
			return fmt.Errorf("ply %d: %s by %s gave ply %d %q on the page, the API %d %q",
				ply, m.Move, how, got.Ply, got.Position, want.View.Ply, want.View.Position)
		}
	}
}

// conformanceEnd checks the page at the end of a game: its status says the
// game is over when it is, no text shows as its raw key, and no JavaScript
// error happened.
func (s *session) conformanceEnd(ctx context.Context, b *browser, t *tab, view sdk.View) error {
	snap, err := s.snapshot(t, true)
	if err != nil {
		return err
	}
	if view.Status == sdk.Over && snap.Status != string(sdk.Over) {
		return fmt.Errorf("the game is over at ply %d, the page's status is %q", view.Ply, snap.Status)
	}
	if k := rawKey.FindString(snap.Text); k != "" {
		return fmt.Errorf("the page shows the raw key %q", k)
	}
	if errs := b.errors(); len(errs) > 0 {
		return fmt.Errorf("JavaScript errors: %v", errs)
	}
	return nil
}

// action plays a listed action (a declaration, a pass) by its button, and
// waits until the page has played it.
func (s *session) action(ctx context.Context, t *tab, how string, v sdk.View, m sdk.LegalMove) error {
	if _, err := s.waitIdle(ctx, t); err != nil {
		return err
	}
	press := "mouse"
	switch how {
	case "keyboard":
		press = how
	case "touch", "touch-drag":
		press = "touch"
	}
	if err := s.pressButton(ctx, t, press, fmt.Sprintf(`#actions button.action[data-move=%q]`, m.Move)); err != nil {
		return fmt.Errorf("action %s: %w", m.Move, err)
	}
	deadline := time.Now().Add(s.cfg.StepTimeout)
	for {
		snap, err := s.snapshot(t, false)
		if err == nil && snap.Ply > v.Ply {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("action %s by %s was not played within %v", m.Move, how, s.cfg.StepTimeout)
		}
		select {
		case <-time.After(15 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// supplyDrop tells whether m is a drop from an unlimited supply: a drop of
// a kind its seat holds none of in hand, made by choosing the cell alone.
func supplyDrop(v sdk.View, m sdk.LegalMove) bool {
	if m.Kind != sdk.DropMove {
		return false
	}
	if int(m.Seat) < len(v.Hands) {
		for _, hp := range v.Hands[m.Seat] {
			if hp.Kind == m.Drop && hp.Count > 0 {
				return false
			}
		}
	}
	return true
}

// supplyInput makes a drop from an unlimited supply with an input method:
// a click or tap on the cell, or Enter on it. When more than one kind may go
// there, the page asks which. The move step (move) waits for it as for any
// other move.
func (s *session) supplyInput(ctx context.Context, t *tab, how string, v sdk.View, m sdk.LegalMove) error {
	cell := cellSelector(m.To)
	switch how {
	case "keyboard":
		if err := tabTo(t, "#arena .cell"); err != nil {
			return err
		}
		if err := arrowTo(t, cell); err != nil {
			return err
		}
		if err := t.key("Enter"); err != nil {
			return err
		}
	default:
		p, err := center(t, cell)
		if err != nil {
			return err
		}
		press := "mouse"
		if how == "touch" || how == "touch-drag" {
			press = "touch"
		}
		if err := s.press(t, press, p); err != nil {
			return err
		}
	}
	kinds := 0
	for _, o := range v.Legal {
		if o.Kind == sdk.DropMove && o.To == m.To && o.Seat == m.Seat && supplyDrop(v, o) {
			kinds++
		}
	}
	if kinds > 1 {
		sel := fmt.Sprintf(`#promote-choices .promote-choice[data-kind=%q]`, m.Drop)
		if err := s.waitVisible(ctx, t, sel); err != nil {
			return err
		}
		p, err := center(t, sel)
		if err != nil {
			return err
		}
		if err := s.press(t, "mouse", p); err != nil {
			return err
		}
	}
	return nil
}
