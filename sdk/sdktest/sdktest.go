// Package sdktest is the conformance suite of the Banmen game contract. A
// variant's test calls Run (or RunWith) to prove, in-process, that it honours
// what the host and the browser rely on; RunPlugin runs the same suite across
// a real plugin process. It checks:
//
//   - a sound Description (CheckDescription), the same at every call;
//   - Start with default, single non-default and bad options, every value of
//     every declared host setting (a first seat must be the seat to move),
//     and bad_option for every host setting not declared;
//   - the View invariants (CheckView) after every move of seeded random games,
//     View(state) equal to the View that Play returned, Ply, History and
//     LastMove following the move played;
//   - every listed legal move accepted; perturbed texts, garbage and moves by
//     seats not to move rejected with a *sdk.RuleError, the state untouched;
//   - resignation as Description.Resign says, game_over after the end;
//   - Abandon as Description.Abandon says (the other seat wins, ReasonAbandoned);
//   - the Texts (CheckTexts), and an English text for every result, notice
//     and action key the random games showed;
//   - the looks (CheckLooks): the card and piece drawings sanitize;
//   - Export in every notation, Import(Export(s)) giving the same game, and
//     garbage Import text rejected;
//   - hostile state bytes (garbage, truncations, flipped bytes, another
//     variant's envelope) rejected with sdk.CodeBadState by every method, and
//     well-sealed foreign payloads rejected or describing a sound game;
//   - Suggest at every level returning a legal move of each seat to move
//     within its deadline, and promptly with a done context; not_your_turn
//     for every seat that may not move;
//   - for an sdk.Rewinder, Rewind to earlier plies giving the Views Play
//     gave then, and bad_ply beyond the game;
//   - for an sdk.Analyser, a score per seat (mirrored for two), a legal
//     best move starting a principal variation that plays out, an answer
//     at once with a done context, game_over and bad_state refused; for
//     an sdk.AnalysedExporter, records with analyses that import as the
//     game;
//   - the same game replayed from several goroutines at once;
//   - for an sdk.Perfter or sdk.Divider, counts equal to the listed legal
//     moves (Perft, Divide), and a cancelled context honoured.
//
// A panic in any method is a failure, never a crash of the test binary. The
// suite checks the contract, not the rules of a game: a variant still needs
// its own rule tests (perft tables, edge positions). Runs are deterministic
// for a given Config.Seed.
//
// The package must never import the platform or any plugin.
package sdktest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/server"
)

// Config tunes a conformance run. Zero fields take the defaults shown, which
// keep a run well under 20 s for a slow variant (Suggest waits dominate).
type Config struct {
	// Games is the number of random games played (default 4, or one per
	// option set up to 8; 2 with -short).
	Games int
	// Seed seeds the random games: the same seed plays the same games.
	Seed uint64
	// MaxPlies caps a random game (default 200).
	MaxPlies int
	// SuggestDeadline is the context deadline given to Suggest (default 2 s).
	SuggestDeadline time.Duration
	// SuggestGrace is how late after its deadline Suggest may return, and how
	// long it may take with an expired context (default 300 ms). Time the
	// work spent waiting for a CPU on a loaded machine is not counted.
	SuggestGrace time.Duration
	// SuggestPositions is the number of positions Suggest is asked about at
	// every level, the start included (default 2, 1 with -short).
	SuggestPositions int
	// PerftNodes bounds the Play calls of the Perfter cross-check (default
	// 4000, 1000 with -short); negative skips it.
	PerftNodes int
	// GRPCOnly accepts a plugin process (RunPlugin) that offers no quick
	// channel, so that every call goes over gRPC: a plugin written in
	// another language may serve gRPC alone. Without it such a plugin fails.
	GRPCOnly bool
	// Options are the option sets the random games start with, in turn.
	// Default: nil, then each rules option's non-default values one at a time.
	Options []sdk.Options

	// pids are the plugin processes doing the work across the boundary,
	// whose waits for a CPU the deadline checks discount (see stopwatch).
	pids []int
}

func (c Config) withDefaults(d sdk.Description) Config {
	short := testing.Short()
	def := func(p *int, long, shortv int) {
		if *p <= 0 {
			*p = long
			if short {
				*p = shortv
			}
		}
	}
	def(&c.MaxPlies, 200, 200)
	def(&c.SuggestPositions, 2, 1)
	if c.PerftNodes == 0 {
		c.PerftNodes = 4000
		if short {
			c.PerftNodes = 1000
		}
	}
	if c.SuggestDeadline <= 0 {
		c.SuggestDeadline = 2 * time.Second
	}
	if c.SuggestGrace <= 0 {
		c.SuggestGrace = 300 * time.Millisecond
	}
	if len(c.Options) == 0 {
		c.Options = append([]sdk.Options{nil}, singleOptions(d)...)
	}
	def(&c.Games, min(max(4, len(c.Options)), 8), 2)
	return c
}

// singleOptions returns one option set per non-default value of every rules
// option, and of the first seat where the host may choose it (the other host
// settings change no game).
func singleOptions(d sdk.Description) []sdk.Options {
	var out []sdk.Options
	specs := d.Options
	if fs, ok := d.HostSetting(sdk.SettingFirstSeat); ok {
		specs = append(slices.Clip(specs), fs)
	}
	for _, o := range specs {
		for _, val := range specValues(o) {
			if val != o.Default {
				out = append(out, sdk.Options{o.Key: val})
			}
		}
	}
	return out
}

// specValues are the values of an option worth trying: both bools, an int's
// bounds, every choice.
func specValues(o sdk.OptionSpec) []string {
	switch o.Type {
	case "bool":
		return []string{"true", "false"}
	case "int":
		return []string{strconv.Itoa(o.Min), strconv.Itoa(o.Max)}
	case "choice":
		return o.Choices
	}
	return nil
}

// badValues are values an option's spec refuses.
func badValues(o sdk.OptionSpec) []string {
	switch o.Type {
	case "bool":
		return []string{"maybe"}
	case "int":
		return []string{"x", strconv.Itoa(o.Min - 1), strconv.Itoa(o.Max + 1)}
	case "choice":
		return []string{"sdktest-no-such-choice"}
	}
	return nil
}

// Run runs the conformance suite on v with the default Config.
func Run(t *testing.T, v sdk.Variant) {
	t.Helper()
	RunWith(t, v, Config{})
}

// RunWith runs the conformance suite on v, as subtests of t.
func RunWith(t *testing.T, v sdk.Variant, c Config) {
	t.Helper()
	s := &suite{v: v}
	if protect(t, "Describe", func() { s.d = v.Describe() }) != nil {
		return
	}
	s.c = c.withDefaults(s.d)
	s.sg, _ = v.(sdk.Suggester)
	s.seats = len(s.d.Seats)
	// A capability method of the wrong signature (written for an older
	// sdk) compiles, and serve.Serve would refuse the variant at start.
	if err := server.CheckCapabilities(v); err != nil {
		t.Errorf("sdktest: %v", err)
	}

	t.Run("describe", guard(s.testDescribe))
	t.Run("options", guard(s.testOptions))
	if s.startView == nil || len(s.startView.Legal) == 0 {
		t.Error("sdktest: no game could start with nil options; skipping the rest")
		return
	}
	t.Run("games", guard(s.testGames))
	t.Run("legal", guard(s.testLegal))
	t.Run("reject", guard(s.testReject))
	t.Run("seats", guard(s.testSeats))
	t.Run("resign", guard(s.testResign))
	t.Run("abandon", guard(s.testAbandon))
	t.Run("over", guard(s.testOver))
	t.Run("texts", guard(s.testTexts))
	t.Run("looks", guard(s.testLooks))
	t.Run("notations", guard(s.testNotations))
	t.Run("hostile_state", guard(s.testHostileState))
	t.Run("import_garbage", guard(s.testImportGarbage))
	t.Run("suggest", guard(s.testSuggest))
	t.Run("rewind", guard(s.testRewind))
	t.Run("analyse", guard(s.testAnalyse))
	t.Run("analysed_export", guard(s.testAnalysedExport))
	t.Run("concurrent", guard(s.testConcurrent))
	t.Run("perft", guard(s.testPerft))
}

type suite struct {
	v     sdk.Variant
	sg    sdk.Suggester // nil: the variant has no computer player
	c     Config
	d     sdk.Description
	seats int

	start     sdk.State
	startView *sdk.View
	games     []*game
	over      []overGame // finished games, for the game-over checks
}

// game is a played random game: states[i] and views[i] after i plies, and
// moves[i] the move from i to i+1.
type game struct {
	name   string
	opts   sdk.Options
	states []sdk.State
	views  []sdk.View
	moves  []sdk.LegalMove
}

type overGame struct {
	name  string
	state sdk.State
	// move is a move that was listed just before the game ended, by seat.
	seat sdk.Seat
	move sdk.Move
}

// position is one position of a random game.
type position struct {
	name  string
	state sdk.State
	view  sdk.View
}

// errPanic stands for the error of a call that panicked (already reported).
type errPanic struct{ v any }

func (e errPanic) Error() string { return fmt.Sprintf("panic: %v", e.v) }

// guard reports a panic that escapes a subtest as its failure, so that the
// other subtests still run.
func guard(f func(*testing.T)) func(*testing.T) {
	return func(t *testing.T) {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		f(t)
	}
}

// protect runs f and reports a panic in it as a test failure.
func protect(t testing.TB, what string, f func()) (err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v\n%s", what, r, debug.Stack())
			err = errPanic{r}
		}
	}()
	f()
	return nil
}

func (s *suite) callStart(t testing.TB, o sdk.Options) (st sdk.State, v sdk.View, err error) {
	t.Helper()
	if perr := protect(t, fmt.Sprintf("Start(%v)", o), func() { st, v, err = s.v.Start(o) }); perr != nil {
		err = perr
	}
	return st, v, err
}

func (s *suite) callPlay(t testing.TB, in sdk.State, seat sdk.Seat, m sdk.Move) (st sdk.State, v sdk.View, err error) {
	t.Helper()
	what := fmt.Sprintf("Play(seat %d, %q)", seat, m)
	if perr := protect(t, what, func() { st, v, err = s.v.Play(in, seat, m) }); perr != nil {
		err = perr
	}
	return st, v, err
}

func (s *suite) callView(t testing.TB, in sdk.State) (v sdk.View, err error) {
	t.Helper()
	if perr := protect(t, "View", func() { v, err = s.v.View(in) }); perr != nil {
		err = perr
	}
	return v, err
}

func (s *suite) callExport(t testing.TB, in sdk.State, format string) (text string, err error) {
	t.Helper()
	if perr := protect(t, fmt.Sprintf("Export(%q)", format), func() { text, err = s.v.Export(in, format) }); perr != nil {
		err = perr
	}
	return text, err
}

func (s *suite) callImport(t testing.TB, format, text string) (st sdk.State, v sdk.View, err error) {
	t.Helper()
	what := fmt.Sprintf("Import(%q, %q)", format, clip(text))
	if perr := protect(t, what, func() { st, v, err = s.v.Import(format, text) }); perr != nil {
		err = perr
	}
	return st, v, err
}

func (s *suite) callSuggest(t testing.TB, ctx context.Context, in sdk.State, seat sdk.Seat, l sdk.Level) (m sdk.Move, err error) {
	t.Helper()
	if perr := protect(t, fmt.Sprintf("Suggest(seat %d, %q)", seat, l), func() { m, err = s.sg.Suggest(ctx, in, seat, l) }); perr != nil {
		err = perr
	}
	return m, err
}

// reporter caps the failures one subtest prints, so that one broken rule
// does not bury the others.
type reporter struct {
	t *testing.T
	n int
}

const maxReports = 12

func (r *reporter) errorf(format string, args ...any) {
	r.t.Helper()
	r.n++
	switch {
	case r.n <= maxReports:
		r.t.Errorf(format, args...)
	case r.n == maxReports+1:
		r.t.Errorf("sdktest: further failures of this subtest are not shown")
	default:
		r.t.Fail()
	}
}

func (r *reporter) done() bool { return r.n > maxReports }

// isRuleError reports whether err is a *sdk.RuleError, with code when code
// is not empty, and describes what it is otherwise.
func isRuleError(err error, code string) (bool, string) {
	if err == nil {
		return false, "no error"
	}
	if _, ok := err.(errPanic); ok {
		return true, "" // already reported
	}
	re, ok := sdk.AsRuleError(err)
	if !ok {
		return false, fmt.Sprintf("%T %q, not a *sdk.RuleError", err, err)
	}
	if code != "" && re.Code != code {
		return false, fmt.Sprintf("RuleError code %q (%v), want %q", re.Code, re, code)
	}
	return true, ""
}

// positions returns positions of the random games where the game is on,
// spread over each game: at most per from every game.
func (s *suite) positions(r *rand.Rand, per int) []position {
	var out []position
	for _, g := range s.games {
		var plies []int
		for i, v := range g.views {
			if v.Status == sdk.Playing && len(v.Legal) > 0 {
				plies = append(plies, i)
			}
		}
		r.Shuffle(len(plies), func(i, j int) { plies[i], plies[j] = plies[j], plies[i] })
		plies = plies[:min(per, len(plies))]
		slices.Sort(plies)
		for _, i := range plies {
			out = append(out, position{fmt.Sprintf("%s ply %d (%s)", g.name, i, g.views[i].Position), g.states[i], g.views[i]})
		}
	}
	return out
}

func (s *suite) rand(stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(s.c.Seed, stream))
}

func (s *suite) testDescribe(t *testing.T) {
	if err := CheckDescription(s.d); err != nil {
		t.Errorf("Describe:\n%v", err)
	}
	var again sdk.Description
	if protect(t, "Describe", func() { again = s.v.Describe() }) == nil {
		if !reflect.DeepEqual(s.d, again) {
			t.Errorf("Describe is not stable between calls")
		}
	}
}

func (s *suite) testOptions(t *testing.T) {
	r := &reporter{t: t}
	good := []sdk.Options{nil, {}}
	defaults := sdk.Options{}
	for _, o := range slices.Concat(s.d.Options, s.d.HostSettings) {
		defaults[o.Key] = o.Default
	}
	good = append(good, defaults)
	good = append(good, singleOptions(s.d)...)
	for _, o := range good {
		st, v, err := s.callStart(t, o)
		if err != nil {
			r.errorf("Start(%v): %v", o, err)
			continue
		}
		if err := CheckView(s.d, v); err != nil {
			r.errorf("Start(%v) view:\n%v", o, err)
		}
		if v.Status != sdk.Playing || v.Ply != 0 || len(v.History) != 0 || v.LastMove != nil {
			r.errorf("Start(%v): status %q, ply %d, %d history moves, last move %v; want a game on at ply 0 with no history",
				o, v.Status, v.Ply, len(v.History), v.LastMove)
		}
		if rv, err := s.callView(t, st); err != nil {
			r.errorf("View of Start(%v) state: %v", o, err)
		} else if diff := diffViews(v, rv); diff != "" {
			r.errorf("View of Start(%v) state differs from Start's view: %s", o, diff)
		}
		if o == nil && s.startView == nil {
			s.start, s.startView = st, &v
		}
	}
	if s.startView == nil {
		return
	}

	bad := []sdk.Options{{"sdktest-no-such-option": "1"}, {sdk.HostSettingPrefix + "sdktest-no-such-setting": "1"}}
	for _, o := range slices.Concat(s.d.Options, s.d.HostSettings) {
		for _, v := range badValues(o) {
			bad = append(bad, sdk.Options{o.Key: v})
		}
	}
	// A host setting the variant does not declare is refused, whatever
	// its value: the host must not believe a clock or a first seat applies.
	for _, k := range sdk.HostSettingKeys() {
		if _, ok := s.d.HostSetting(k); !ok {
			for _, v := range []string{"0", "1", "30", "true", string(sdk.Medium)} {
				bad = append(bad, sdk.Options{k: v})
			}
		}
	}
	for _, o := range bad {
		_, _, err := s.callStart(t, o)
		if ok, why := isRuleError(err, sdk.CodeBadOption); !ok {
			r.errorf("Start(%v): %s; want a RuleError %q", o, why, sdk.CodeBadOption)
		}
	}
	s.testHostSettings(t, r)
}

// testHostSettings starts a game with every value of every host setting the
// variant declares: Start must accept them all, and a first seat must be the
// seat to move.
func (s *suite) testHostSettings(t *testing.T, r *reporter) {
	for _, o := range s.d.HostSettings {
		for _, val := range specValues(o) {
			opts := sdk.Options{o.Key: val}
			_, v, err := s.callStart(t, opts)
			if err != nil {
				r.errorf("Start(%v): %v; the variant declares host setting %q, so Start must accept its values", opts, err, o.Key)
				continue
			}
			if err := CheckView(s.d, v); err != nil {
				r.errorf("Start(%v) view:\n%v", opts, err)
			}
			if o.Key == sdk.SettingFirstSeat {
				n, _ := strconv.Atoi(val)
				if !slices.Contains(v.ToMove, sdk.Seat(n)) {
					r.errorf("Start(%v): seats to move %v; want seat %d to move first", opts, v.ToMove, n)
				}
			}
		}
	}
}
