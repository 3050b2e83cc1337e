// Package sdktest is the conformance suite of the Banmen game contract. A
// variant's test calls Run (or RunWith) to prove, in-process and without a
// plugin subprocess, that it honours what the host and the browser rely on:
//
//   - a sound Description (CheckDescription);
//   - Start with default, single non-default and bad options;
//   - the View invariants (CheckView) after every move of seeded random games,
//     and View(state) equal to the View that Play returned;
//   - every listed legal move accepted, anything else rejected with a
//     *sdk.RuleError without touching the state, moves by seats not to move
//     rejected, game over enforced;
//   - resignation as Description.Resign says;
//   - Export in every notation, Import(Export(s)) giving the same game, and
//     garbage Import text rejected;
//   - hostile state bytes (garbage, truncations, flipped bytes, another
//     variant's state) rejected with sdk.CodeBadState and never a panic;
//   - Suggest at every level returning a legal move within its deadline;
//   - for an sdk.Perfter, its counts equal to the listed legal moves (Perft).
//
// It checks the contract, not the rules of a game: a variant still needs its
// own rule tests (perft tables, edge positions). The runs are deterministic
// for a given Config.Seed.
//
// The package must never import the platform or any plugin.
package sdktest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
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
	// long it may take with an expired context (default 300 ms).
	SuggestGrace time.Duration
	// SuggestPositions is the number of positions Suggest is asked about at
	// every level, the start included (default 2, 1 with -short).
	SuggestPositions int
	// PerftNodes bounds the Play calls of the Perfter cross-check (default
	// 4000, 1000 with -short); negative skips it.
	PerftNodes int
	// Options are the option sets the random games start with, in turn.
	// Default: nil, then each rules option's non-default values one at a time.
	Options []sdk.Options
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
// option (host options are the host's business).
func singleOptions(d sdk.Description) []sdk.Options {
	var out []sdk.Options
	for _, o := range d.Options {
		if o.Host {
			continue
		}
		var values []string
		switch o.Type {
		case "bool":
			values = []string{"true", "false"}
		case "int":
			values = []string{strconv.Itoa(o.Min), strconv.Itoa(o.Max)}
		case "choice":
			values = o.Choices
		}
		for _, val := range values {
			if val != o.Default {
				out = append(out, sdk.Options{o.Key: val})
			}
		}
	}
	return out
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
	s.seats = len(s.d.Seats)

	t.Run("describe", s.testDescribe)
	t.Run("options", s.testOptions)
	if s.startView == nil || len(s.startView.Legal) == 0 {
		t.Error("sdktest: no game could start with nil options; skipping the rest")
		return
	}
	t.Run("games", s.testGames)
	t.Run("legal", s.testLegal)
	t.Run("reject", s.testReject)
	t.Run("seats", s.testSeats)
	t.Run("resign", s.testResign)
	t.Run("over", s.testOver)
	t.Run("notations", s.testNotations)
	t.Run("hostile_state", s.testHostileState)
	t.Run("import_garbage", s.testImportGarbage)
	t.Run("suggest", s.testSuggest)
	t.Run("concurrent", s.testConcurrent)
	t.Run("perft", s.testPerft)
}

type suite struct {
	v     sdk.Variant
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

func (s *suite) callSuggest(t testing.TB, ctx context.Context, in sdk.State, l sdk.Level) (m sdk.Move, err error) {
	t.Helper()
	if perr := protect(t, fmt.Sprintf("Suggest(%q)", l), func() { m, err = s.v.Suggest(ctx, in, l) }); perr != nil {
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
		if a, b := fmt.Sprintf("%#v", s.d), fmt.Sprintf("%#v", again); a != b {
			t.Errorf("Describe is not stable between calls")
		}
	}
}

func (s *suite) testOptions(t *testing.T) {
	r := &reporter{t: t}
	good := []sdk.Options{nil, {}}
	defaults := sdk.Options{}
	for _, o := range s.d.Options {
		if !o.Host {
			defaults[o.Key] = o.Default
		}
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

	bad := []sdk.Options{{"sdktest-no-such-option": "1"}}
	for _, o := range s.d.Options {
		if o.Host {
			continue
		}
		switch o.Type {
		case "bool":
			bad = append(bad, sdk.Options{o.Key: "maybe"})
		case "int":
			bad = append(bad, sdk.Options{o.Key: "x"}, sdk.Options{o.Key: strconv.Itoa(o.Min - 1)},
				sdk.Options{o.Key: strconv.Itoa(o.Max + 1)})
		case "choice":
			bad = append(bad, sdk.Options{o.Key: "sdktest-no-such-choice"})
		}
	}
	for _, o := range bad {
		_, _, err := s.callStart(t, o)
		if ok, why := isRuleError(err, sdk.CodeBadOption); !ok {
			r.errorf("Start(%v): %s; want a RuleError %q", o, why, sdk.CodeBadOption)
		}
	}
}

// checkTransition checks the view after a listed move m was played from the
// view before.
func (s *suite) checkTransition(before sdk.View, m sdk.LegalMove, after sdk.View) []string {
	var bad []string
	if err := CheckView(s.d, after); err != nil {
		bad = append(bad, err.Error())
	}
	if after.Ply != before.Ply+1 {
		bad = append(bad, fmt.Sprintf("ply %d after ply %d, want one more", after.Ply, before.Ply))
	}
	if len(after.History) != len(before.History)+1 {
		bad = append(bad, fmt.Sprintf("history of %d moves after %d, want one more", len(after.History), len(before.History)))
	} else {
		for i, h := range before.History {
			if after.History[i].Move != h.Move || after.History[i].Seat != h.Seat {
				bad = append(bad, fmt.Sprintf("history move %d changed from %+v to %+v", i, h, after.History[i]))
				break
			}
		}
		last := after.History[len(after.History)-1]
		if last.Move != m.Move || last.Seat != m.Seat || last.Text != m.Text {
			bad = append(bad, fmt.Sprintf("last history entry %+v, want move %q, seat %d, text %q", last, m.Move, m.Seat, m.Text))
		}
	}
	switch lm := after.LastMove; {
	case lm == nil:
		bad = append(bad, "no LastMove")
	case lm.Move != m.Move || lm.Seat != m.Seat || lm.Kind != m.Kind || lm.From != m.From ||
		lm.To != m.To || lm.Drop != m.Drop || lm.Promote != m.Promote:
		bad = append(bad, fmt.Sprintf("LastMove %+v does not match the listed move %+v", *lm, m))
	}
	return bad
}

func (s *suite) testGames(t *testing.T) {
	for i := range s.c.Games {
		opts := s.c.Options[i%len(s.c.Options)]
		name := fmt.Sprintf("game%d", i)
		t.Run(name, func(t *testing.T) {
			g := s.playRandom(t, name, uint64(i), opts)
			if g != nil {
				s.games = append(s.games, g)
				last := len(g.views) - 1
				if last > 0 && g.views[last].Status == sdk.Over {
					s.over = append(s.over, overGame{name, g.states[last], g.moves[last-1].Seat, g.moves[last-1].Move})
				}
				t.Logf("options %v: %d plies, status %s %s", opts, last, g.views[last].Status, resultText(g.views[last].Result))
			}
		})
	}
}

func resultText(r *sdk.Result) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("(%s, winners %v)", r.Reason, r.Winners)
}

// playRandom plays a seeded random game, checking every step, and returns
// what it played (nil when the game could not start).
func (s *suite) playRandom(t *testing.T, name string, stream uint64, opts sdk.Options) *game {
	rnd := s.rand(stream)
	st, view, err := s.callStart(t, opts)
	if err != nil {
		t.Errorf("Start(%v): %v", opts, err)
		return nil
	}
	if err := CheckView(s.d, view); err != nil {
		t.Errorf("start view:\n%v", err)
		return nil
	}
	g := &game{name: name, opts: opts, states: []sdk.State{st}, views: []sdk.View{view}}
	for ply := 0; ply < s.c.MaxPlies && view.Status == sdk.Playing && len(view.Legal) > 0; ply++ {
		m := view.Legal[rnd.IntN(len(view.Legal))]
		orig := bytes.Clone(st)
		ns, nv, err := s.callPlay(t, st, m.Seat, m.Move)
		if !bytes.Equal(orig, st) {
			t.Errorf("ply %d: Play changed the bytes of its state argument", ply)
			return g
		}
		if err != nil {
			t.Errorf("ply %d at %s: listed move %q of seat %d rejected: %v", ply, view.Position, m.Move, m.Seat, err)
			return g
		}
		if bad := s.checkTransition(view, m, nv); len(bad) > 0 {
			t.Errorf("ply %d at %s, after %q by seat %d:\n%s", ply, view.Position, m.Move, m.Seat, joinLines(bad))
			return g
		}
		rv, err := s.callView(t, ns)
		if err != nil {
			t.Errorf("ply %d: View of the state Play returned after %q: %v", ply, m.Move, err)
			return g
		}
		if diff := diffViews(nv, rv); diff != "" {
			t.Errorf("ply %d: View(state) differs from Play's view after %q: %s", ply, m.Move, diff)
			return g
		}
		st, view = ns, nv
		g.states, g.views, g.moves = append(g.states, st), append(g.views, view), append(g.moves, m)
	}
	return g
}

func joinLines(lines []string) string {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString("\t")
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}

// testLegal plays every listed move at a few positions of each game.
func (s *suite) testLegal(t *testing.T) {
	r := &reporter{t: t}
	budget := 600 // Play calls: a slow variant's Play takes milliseconds
	for _, p := range s.positions(s.rand(100), 2) {
		for _, m := range p.view.Legal {
			if budget--; budget < 0 || r.done() {
				return
			}
			_, nv, err := s.callPlay(t, p.state, m.Seat, m.Move)
			if err != nil {
				r.errorf("%s: listed move %q of seat %d rejected: %v", p.name, m.Move, m.Seat, err)
				continue
			}
			if bad := s.checkTransition(p.view, m, nv); len(bad) > 0 {
				r.errorf("%s, after %q by seat %d:\n%s", p.name, m.Move, m.Seat, joinLines(bad))
			}
		}
	}
}

// perturb returns texts near m: one character changed, dropped or added,
// halves swapped ("7g7f" → "7f7g"), case changed, suffixes.
func perturb(r *rand.Rand, m string, alphabet []rune) []string {
	rs := []rune(m)
	if len(rs) == 0 {
		return nil
	}
	pick := func() rune { return alphabet[r.IntN(len(alphabet))] }
	changed := slices.Clone(rs)
	changed[r.IntN(len(rs))] = pick()
	i := r.IntN(len(rs))
	dropped := slices.Delete(slices.Clone(rs), i, i+1)
	added := slices.Insert(slices.Clone(rs), r.IntN(len(rs)+1), pick())
	h := len(rs) / 2
	swapped := string(rs[h:]) + string(rs[:h])
	rev := slices.Clone(rs)
	slices.Reverse(rev)
	return []string{string(changed), string(dropped), string(added), swapped, string(rev),
		m + "+", m + "=", m + m, " " + m, m + " ", bytesUpper(m), bytesLower(m)}
}

func bytesUpper(s string) string { return string(bytes.ToUpper([]byte(s))) }
func bytesLower(s string) string { return string(bytes.ToLower([]byte(s))) }

func garbageText(r *rand.Rand, n int, printable bool) string {
	b := make([]byte, n)
	for i := range b {
		if printable {
			b[i] = byte(' ' + r.IntN(95))
		} else {
			b[i] = byte(r.IntN(256))
		}
	}
	return string(b)
}

// testReject plays texts that are not listed and expects rejections that
// leave the state as it was.
func (s *suite) testReject(t *testing.T) {
	r := &reporter{t: t}
	rnd := s.rand(200)
	for _, p := range append(s.startPositions(), s.positions(rnd, 2)...) {
		if len(p.view.Legal) == 0 {
			continue
		}
		listed := map[sdk.Move]bool{sdk.Resign: true}
		var alphabet []rune
		for _, m := range p.view.Legal {
			listed[m.Move] = true
			alphabet = append(alphabet, []rune(string(m.Move))...)
		}
		alphabet = append(alphabet, []rune("0123456789abcijxyz*+-=@#")...)
		seat := p.view.Legal[0].Seat
		type cand struct {
			seat sdk.Seat
			text string
		}
		var cands []cand
		for range min(4, len(p.view.Legal)) {
			m := p.view.Legal[rnd.IntN(len(p.view.Legal))]
			for _, x := range perturb(rnd, string(m.Move), alphabet) {
				cands = append(cands, cand{m.Seat, x})
			}
		}
		for _, x := range []string{"", " ", "\x00", "\xff\xfe", "-1", "null", garbageText(rnd, 1+rnd.IntN(12), true),
			garbageText(rnd, 1+rnd.IntN(12), false), garbageText(rnd, 2000, true)} {
			cands = append(cands, cand{seat, x})
		}
		for _, c := range cands {
			if listed[sdk.Move(c.text)] || r.done() {
				continue
			}
			orig := bytes.Clone(p.state)
			_, _, err := s.callPlay(t, p.state, c.seat, sdk.Move(c.text))
			if !bytes.Equal(orig, p.state) {
				r.errorf("%s: Play(%q) changed the bytes of its state argument", p.name, clip(c.text))
				return
			}
			if ok, why := isRuleError(err, ""); !ok {
				r.errorf("%s: Play(seat %d, %q), not a listed move: %s; want a RuleError (a move has exactly one text, the listed one)",
					p.name, c.seat, clip(c.text), why)
			}
		}
	}
}

func (s *suite) startPositions() []position {
	if s.startView == nil {
		return nil
	}
	return []position{{"start (" + s.startView.Position + ")", s.start, *s.startView}}
}

// testSeats plays listed moves by seats that are not to move.
func (s *suite) testSeats(t *testing.T) {
	r := &reporter{t: t}
	for _, p := range append(s.startPositions(), s.positions(s.rand(300), 2)...) {
		if len(p.view.Legal) == 0 {
			continue
		}
		m := p.view.Legal[0]
		seats := []sdk.Seat{-1, sdk.Seat(s.seats), 99}
		for i := range s.seats {
			if !slices.Contains(p.view.ToMove, sdk.Seat(i)) {
				seats = append(seats, sdk.Seat(i))
			}
		}
		for _, seat := range seats {
			_, _, err := s.callPlay(t, p.state, seat, m.Move)
			if ok, why := isRuleError(err, ""); !ok {
				r.errorf("%s: Play(seat %d, %q) by a seat not to move (%v): %s; want a RuleError", p.name, seat, m.Move, p.view.ToMove, why)
			}
		}
	}
}

func (s *suite) testResign(t *testing.T) {
	r := &reporter{t: t}
	if !s.d.Resign {
		for i := range s.seats {
			_, _, err := s.callPlay(t, s.start, sdk.Seat(i), sdk.Resign)
			if ok, why := isRuleError(err, ""); !ok {
				r.errorf("Play(seat %d, %q) where Describe says no resigning: %s; want a RuleError", i, sdk.Resign, why)
			}
		}
		return
	}
	// Every seat resigns first; in a game of more than two, the others
	// follow until the game ends, with one seat left in.
	for first := range s.seats {
		st, view := s.start, *s.startView
		var gone []sdk.Seat
		for k := 0; k < max(1, s.seats-1) && view.Status == sdk.Playing; k++ {
			seat := sdk.Seat((first + k) % s.seats)
			ns, nv, err := s.callPlay(t, st, seat, sdk.Resign)
			if err != nil {
				r.errorf("Play(seat %d, %q) after %v resigned: %v", seat, sdk.Resign, gone, err)
				break
			}
			if err := CheckView(s.d, nv); err != nil {
				r.errorf("view after seat %d resigned:\n%v", seat, err)
			}
			if rv, err := s.callView(t, ns); err != nil {
				r.errorf("View of the state after seat %d resigned: %v", seat, err)
			} else if diff := diffViews(nv, rv); diff != "" {
				r.errorf("View(state) differs from Play's view after seat %d resigned: %s", seat, diff)
			}
			st, view = ns, nv
			gone = append(gone, seat)
		}
		if view.Status != sdk.Over || view.Result == nil {
			r.errorf("seats %v resigned at the start but the game is not over (status %q)", gone, view.Status)
			continue
		}
		for _, w := range view.Result.Winners {
			if slices.Contains(gone, w) {
				r.errorf("seat %d resigned but is among the winners %v", w, view.Result.Winners)
			}
		}
		if s.seats == 2 && !slices.Equal(view.Result.Winners, []sdk.Seat{1 - gone[0]}) {
			r.errorf("seat %d resigned: winners %v, want [%d]", gone[0], view.Result.Winners, 1-gone[0])
		}
		for _, n := range s.d.Notations {
			if _, err := s.callExport(t, st, n.ID); err != nil {
				r.errorf("Export(%q) of a resigned game: %v", n.ID, err)
			}
		}
		m := s.startView.Legal[0]
		s.over = append(s.over, overGame{fmt.Sprintf("resigned by %v", gone), st, m.Seat, m.Move})
	}
}

func (s *suite) testOver(t *testing.T) {
	r := &reporter{t: t}
	if len(s.over) == 0 {
		t.Skip("no game ended (no resigning and no random game finished within MaxPlies)")
	}
	for _, o := range s.over[:min(len(s.over), 6)] {
		view, err := s.callView(t, o.state)
		if err != nil {
			r.errorf("%s: View: %v", o.name, err)
			continue
		}
		if len(view.Legal) != 0 || len(view.ToMove) != 0 {
			r.errorf("%s: a finished game lists %d legal moves and seats to move %v", o.name, len(view.Legal), view.ToMove)
		}
		moves := []sdk.Move{o.move}
		if s.d.Resign {
			moves = append(moves, sdk.Resign)
		}
		for _, m := range moves {
			_, _, err := s.callPlay(t, o.state, o.seat, m)
			if ok, why := isRuleError(err, sdk.CodeGameOver); !ok {
				r.errorf("%s: Play(seat %d, %q) after the end: %s", o.name, o.seat, m, why)
			}
		}
		for _, l := range s.d.Levels[:min(1, len(s.d.Levels))] {
			ctx, cancel := context.WithTimeout(context.Background(), s.c.SuggestDeadline)
			t0 := time.Now()
			m, err := s.callSuggest(t, ctx, o.state, l)
			cancel()
			if ok, why := isRuleError(err, ""); !ok {
				r.errorf("%s: Suggest(%q) after the end returned %q: %s; want a RuleError", o.name, l, m, why)
			}
			if el := time.Since(t0); el > s.c.SuggestDeadline+s.c.SuggestGrace {
				r.errorf("%s: Suggest(%q) after the end took %v", o.name, l, el)
				return
			}
		}
	}
}

// testNotations exports games in every notation and imports them back.
func (s *suite) testNotations(t *testing.T) {
	r := &reporter{t: t}
	if _, err := s.callExport(t, s.start, "sdktest-no-such-format"); !okRule(err, sdk.CodeBadFormat) {
		r.errorf("Export in an unknown format: %v; want a RuleError %q", err, sdk.CodeBadFormat)
	}
	if _, _, err := s.callImport(t, "sdktest-no-such-format", "x"); !okRule(err, sdk.CodeBadFormat) {
		r.errorf("Import in an unknown format: %v; want a RuleError %q", err, sdk.CodeBadFormat)
	}
	cases := s.startPositions()
	for _, g := range s.games {
		for _, i := range []int{len(g.states) / 2, len(g.states) - 1} {
			cases = append(cases, position{fmt.Sprintf("%s ply %d", g.name, i), g.states[i], g.views[i]})
		}
	}
	for _, n := range s.d.Notations {
		for _, p := range cases {
			text, err := s.callExport(t, p.state, n.ID)
			if err != nil {
				r.errorf("%s: Export(%q): %v", p.name, n.ID, err)
				continue
			}
			if !n.Import {
				_, _, err := s.callImport(t, n.ID, text)
				if ok, why := isRuleError(err, ""); !ok {
					r.errorf("Import(%q), a format Describe marks as not importable: %s; want a RuleError", n.ID, why)
				}
				continue
			}
			ist, iv, err := s.callImport(t, n.ID, text)
			if err != nil {
				r.errorf("%s: Import(%q) of its own export failed: %v\n%s", p.name, n.ID, err, clip(text))
				continue
			}
			if err := CheckView(s.d, iv); err != nil {
				r.errorf("%s: view of Import(%q):\n%v", p.name, n.ID, err)
			}
			if iv.Position != p.view.Position || iv.Ply != p.view.Ply || iv.Status != p.view.Status ||
				!slices.Equal(historyMoves(iv), historyMoves(p.view)) {
				r.errorf("%s: Import(%q) of its export gives another game:\n\tgot  %s ply %d %s %v\n\twant %s ply %d %s %v\n%s",
					p.name, n.ID, iv.Position, iv.Ply, iv.Status, historyMoves(iv),
					p.view.Position, p.view.Ply, p.view.Status, historyMoves(p.view), clip(text))
			}
			if rv, err := s.callView(t, ist); err != nil {
				r.errorf("%s: View of the imported state: %v", p.name, err)
			} else if diff := diffViews(iv, rv); diff != "" {
				r.errorf("%s: View(state) differs from Import's view: %s", p.name, diff)
			}
		}
	}
}

func okRule(err error, code string) bool {
	ok, _ := isRuleError(err, code)
	return ok
}

func historyMoves(v sdk.View) []sdk.Move {
	out := make([]sdk.Move, len(v.History))
	for i, h := range v.History {
		out[i] = h.Move
	}
	return out
}

// hostileCase is a state the variant must survive.
type hostileCase struct {
	name  string
	state sdk.State
}

func (s *suite) testHostileState(t *testing.T) {
	rnd := s.rand(400)
	real := s.start
	for _, g := range s.games {
		if st := g.states[len(g.states)-1]; len(st) > len(real) {
			real = st
		}
	}
	version, payload, sealed := byte(1), []byte(real), false
	if ver, p, err := sdk.OpenState(s.d.ID, real); err == nil {
		version, payload, sealed = ver, p, true
	}

	cases := []hostileCase{{"nil", nil}, {"empty", sdk.State{}}}
	for _, n := range []int{1, 7, 16, 64, 1000} {
		cases = append(cases, hostileCase{fmt.Sprintf("%d random bytes", n), sdk.State(garbageText(rnd, n, false))})
	}
	for _, n := range sample(rnd, len(real), 48) {
		cases = append(cases, hostileCase{fmt.Sprintf("truncated to %d of %d bytes", n, len(real)), real[:n:n]})
	}
	for _, i := range sample(rnd, len(real), 48) {
		b := bytes.Clone(real)
		b[i] ^= byte(1 + rnd.IntN(255))
		cases = append(cases, hostileCase{fmt.Sprintf("byte %d of %d flipped", i, len(real)), b})
	}
	cases = append(cases,
		hostileCase{"one byte appended", append(bytes.Clone(real), 0)},
		hostileCase{"sealed for another variant", sdk.SealState("other", version, payload)},
		hostileCase{"sealed for no variant", sdk.SealState("", version, payload)},
	)
	start := s.startView.Legal[0]
	r := &reporter{t: t}
	for _, c := range cases {
		if r.done() {
			return
		}
		s.hostile(t, r, c, start, func(what string, err error) {
			if ok, why := isRuleError(err, sdk.CodeBadState); !ok {
				r.errorf("%s given a state %s: %s", what, c.name, why)
			}
		})
	}
	if !sealed {
		t.Logf("the state is not made with sdk.SealState; payload checks skipped")
		return
	}

	// Well-sealed payloads the variant did not write: it may reject them
	// (as bad_state) or accept them, but then it must describe a sound game.
	var inner []hostileCase
	for _, n := range []int{0, 1, 9, 100} {
		inner = append(inner, hostileCase{fmt.Sprintf("%d random payload bytes", n), sdk.State(garbageText(rnd, n, false))})
	}
	for _, n := range sample(rnd, len(payload), 24) {
		inner = append(inner, hostileCase{fmt.Sprintf("payload truncated to %d of %d bytes", n, len(payload)), payload[:n:n]})
	}
	for _, i := range sample(rnd, len(payload), 48) {
		b := bytes.Clone(payload)
		b[i] ^= byte(1 + rnd.IntN(255))
		inner = append(inner, hostileCase{fmt.Sprintf("payload byte %d of %d flipped", i, len(payload)), b})
	}
	for _, ic := range inner {
		ic.state = sdk.SealState(s.d.ID, version, ic.state)
		s.acceptedOrRejected(t, r, ic)
	}
	for _, ver := range []byte{0, version + 1, 255} {
		if ver != version {
			s.acceptedOrRejected(t, r, hostileCase{fmt.Sprintf("payload under version %d", ver), sdk.SealState(s.d.ID, ver, payload)})
		}
	}
}

// hostile gives the state of c to every method that takes a state and
// passes each error to check.
func (s *suite) hostile(t *testing.T, r *reporter, c hostileCase, m sdk.LegalMove, check func(what string, err error)) {
	_, err := s.callView(t, c.state)
	check("View", err)
	_, _, err = s.callPlay(t, c.state, m.Seat, m.Move)
	check(fmt.Sprintf("Play(%q)", m.Move), err)
	for _, n := range s.d.Notations {
		_, err := s.callExport(t, c.state, n.ID)
		check(fmt.Sprintf("Export(%q)", n.ID), err)
	}
	if len(s.d.Levels) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), s.c.SuggestDeadline)
		t0 := time.Now()
		_, err := s.callSuggest(t, ctx, c.state, s.d.Levels[0])
		cancel()
		check("Suggest", err)
		if el := time.Since(t0); el > s.c.SuggestDeadline+s.c.SuggestGrace {
			r.errorf("Suggest given a state %s took %v", c.name, el)
		}
	}
}

func (s *suite) acceptedOrRejected(t *testing.T, r *reporter, c hostileCase) {
	if r.done() {
		return
	}
	v, err := s.callView(t, c.state)
	if err != nil {
		if ok, why := isRuleError(err, sdk.CodeBadState); !ok {
			r.errorf("View given a state whose %s: %s", c.name, why)
		}
		// Whatever View said, nothing else may panic or accept it.
		s.hostile(t, r, c, s.startView.Legal[0], func(what string, err error) {
			if err == nil {
				r.errorf("View rejects a state whose %s, but %s accepts it", c.name, what)
			}
		})
		return
	}
	if err := CheckView(s.d, v); err != nil {
		r.errorf("View accepts a state whose %s, and describes an unsound game:\n%v", c.name, err)
		return
	}
	for _, n := range s.d.Notations {
		if _, err := s.callExport(t, c.state, n.ID); err != nil {
			r.errorf("View accepts a state whose %s, but Export(%q) fails: %v", c.name, n.ID, err)
		}
	}
	if v.Status == sdk.Playing {
		m := v.Legal[0]
		if _, nv, err := s.callPlay(t, c.state, m.Seat, m.Move); err != nil {
			r.errorf("View accepts a state whose %s, but its listed move %q fails: %v", c.name, m.Move, err)
		} else if bad := s.checkTransition(v, m, nv); len(bad) > 0 {
			r.errorf("a state whose %s, after %q:\n%s", c.name, m.Move, joinLines(bad))
		}
	}
}

// sample returns up to n distinct ints in [0, size), always including the
// small ones and the last few, sorted.
func sample(r *rand.Rand, size, n int) []int {
	if size <= n {
		out := make([]int, size)
		for i := range out {
			out[i] = i
		}
		return out
	}
	set := map[int]bool{}
	for _, i := range []int{0, 1, 2, 3, size - 1, size - 2, size - 4, size - 5} {
		if i >= 0 && i < size {
			set[i] = true
		}
	}
	for len(set) < n {
		set[r.IntN(size)] = true
	}
	out := make([]int, 0, len(set))
	for i := range set {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

func (s *suite) testImportGarbage(t *testing.T) {
	r := &reporter{t: t}
	rnd := s.rand(500)
	texts := []string{"\x00", "\xff\xfe\xfd", "sdktest garbage \x00\x01\x02 ☃", garbageText(rnd, 64, false),
		garbageText(rnd, 4096, false), "\x01\x02\x03\x04\x05\x06\x07\x08"}
	for _, n := range s.d.Notations {
		if !n.Import {
			continue
		}
		for _, text := range texts {
			_, _, err := s.callImport(t, n.ID, text)
			if ok, why := isRuleError(err, ""); !ok {
				r.errorf("Import(%q, %q): %s; want a RuleError", n.ID, clip(text), why)
			}
		}
	}
}

func (s *suite) testSuggest(t *testing.T) {
	if len(s.d.Levels) == 0 {
		t.Skip("no levels")
	}
	// The start, then one random position of each game in turn.
	positions := s.startPositions()
	for _, p := range s.positions(s.rand(600), 1) {
		if len(positions) >= s.c.SuggestPositions {
			break
		}
		positions = append(positions, p)
	}
	deadline, grace := s.c.SuggestDeadline, s.c.SuggestGrace
	for _, l := range s.d.Levels {
		t.Run(string(l), func(t *testing.T) {
			r := &reporter{t: t}
			for _, p := range positions {
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				t0 := time.Now()
				m, err := s.callSuggest(t, ctx, p.state, l)
				el := time.Since(t0)
				cancel()
				if el > deadline+grace {
					r.errorf("%s: Suggest took %v with a deadline of %v", p.name, el, deadline)
					return // the other positions would only wait as long
				}
				if err != nil {
					r.errorf("%s: Suggest: %v", p.name, err)
					continue
				}
				s.checkSuggested(t, r, p, m)

				for _, expired := range []bool{false, true} {
					var ctx context.Context
					var cancel context.CancelFunc
					if expired {
						ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
					} else {
						ctx, cancel = context.WithCancel(context.Background())
						cancel()
					}
					t0 := time.Now()
					m, err := s.callSuggest(t, ctx, p.state, l)
					cancel()
					if el := time.Since(t0); el > grace {
						r.errorf("%s: Suggest took %v with a done context", p.name, el)
						return
					}
					if err == nil {
						s.checkSuggested(t, r, p, m)
					}
				}
			}
		})
	}
	t.Run("unknown_level", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		if m, err := s.callSuggest(t, ctx, s.start, "sdktest-no-such-level"); !okRule(err, "") {
			t.Errorf("Suggest at an unknown level: move %q, error %v; want a RuleError", m, err)
		}
	})
}

func (s *suite) checkSuggested(t *testing.T, r *reporter, p position, m sdk.Move) {
	for _, lm := range p.view.Legal {
		if lm.Move == m {
			if _, _, err := s.callPlay(t, p.state, lm.Seat, m); err != nil {
				r.errorf("%s: suggested move %q is listed but Play rejects it: %v", p.name, m, err)
			}
			return
		}
	}
	r.errorf("%s: suggested move %q is not among the %d listed legal moves", p.name, m, len(p.view.Legal))
}

// testConcurrent replays a game from several goroutines at once: the rules
// must keep no shared mutable state.
func (s *suite) testConcurrent(t *testing.T) {
	if len(s.games) == 0 {
		t.Skip("no game played")
	}
	g := s.games[0]
	want := g.views[len(g.views)-1]
	const workers = 4
	errs := make(chan string, workers)
	for w := range workers {
		go func() {
			defer func() {
				if r := recover(); r != nil {
					errs <- fmt.Sprintf("worker %d panicked: %v\n%s", w, r, debug.Stack())
				}
			}()
			st, v, err := s.v.Start(g.opts)
			if err != nil {
				errs <- fmt.Sprintf("worker %d: Start: %v", w, err)
				return
			}
			for _, m := range g.moves {
				if st, v, err = s.v.Play(st, m.Seat, m.Move); err != nil {
					errs <- fmt.Sprintf("worker %d: Play(%q): %v", w, m.Move, err)
					return
				}
			}
			if diff := diffViews(want, v); diff != "" {
				errs <- fmt.Sprintf("worker %d: the same moves gave another game: %s", w, diff)
				return
			}
			errs <- ""
		}()
	}
	for range workers {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

// testPerft compares an sdk.Perfter's counts with the listed legal moves.
func (s *suite) testPerft(t *testing.T) {
	p, ok := s.v.(sdk.Perfter)
	if !ok {
		t.Skip("not a Perfter")
	}
	if s.c.PerftNodes < 0 {
		t.Skip("PerftNodes < 0")
	}
	ctx := context.Background()
	for depth := 1; depth <= 6; depth++ {
		var want uint64
		var err error
		if protect(t, "Perft through Play", func() { want, err = Perft(s.v, s.start, depth) }) != nil {
			return
		}
		if err != nil {
			t.Fatalf("Perft(start, %d) through Play: %v", depth, err)
		}
		for _, pos := range []string{"", s.startView.Position} {
			var got uint64
			var err error
			if protect(t, "Perft", func() { got, err = p.Perft(ctx, pos, depth) }) != nil {
				return
			}
			if err != nil {
				t.Errorf("Perft(%q, %d): %v", pos, depth, err)
			} else if got != want {
				t.Errorf("Perft(%q, %d) = %d, but the listed legal moves give %d%s", pos, depth, got, want, s.divide(ctx, p, depth))
				return
			}
		}
		t.Logf("perft %d = %d", depth, want)
		if want == 0 || want > uint64(s.c.PerftNodes) { // the next depth plays every leaf
			break
		}
	}

	if dv, ok := s.v.(sdk.Divider); ok {
		s.checkDivider(t, dv)
	}

	// Early plies of the random games: one level deep, the count must be
	// the number of listed moves (later plies could depend on history).
	r := &reporter{t: t}
	for _, g := range s.games {
		for i := 1; i < min(8, len(g.views)); i++ {
			v := g.views[i]
			got, err := p.Perft(ctx, v.Position, 1)
			want := uint64(len(v.Legal))
			if v.Status == sdk.Over {
				want = 0
			}
			if err != nil {
				r.errorf("%s ply %d: Perft(%q, 1): %v", g.name, i, v.Position, err)
			} else if got != want {
				r.errorf("%s ply %d: Perft(%q, 1) = %d, but %d moves are listed", g.name, i, v.Position, got, want)
			}
		}
	}

	for _, bad := range []string{"sdktest garbage \x00", "\xff"} {
		var err error
		if protect(t, "Perft", func() { _, err = p.Perft(ctx, bad, 1) }) == nil && err == nil {
			t.Errorf("Perft(%q, 1) accepted a garbage position", bad)
		}
	}

	// A cancelled context must stop a deep count quickly.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	done := make(chan string, 1)
	go func() {
		// This goroutine may outlive the test: it must not touch t.
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Sprintf("Perft with a cancelled context panicked: %v", r)
			}
		}()
		if _, err := p.Perft(cctx, "", 64); err == nil {
			done <- "Perft with a cancelled context returned no error"
		}
		done <- ""
	}()
	select {
	case msg := <-done:
		if msg != "" {
			t.Error(msg)
		}
	case <-time.After(2 * time.Second):
		t.Errorf("Perft with a cancelled context did not return within 2 s (check ctx.Err() inside the recursion, not only between root moves)")
	}
}

// checkDivider compares an sdk.Divider's split of perft 2 from the start
// with the listed legal moves.
func (s *suite) checkDivider(t *testing.T, dv sdk.Divider) {
	want, err := Divide(s.v, s.start, 2)
	if err != nil {
		t.Errorf("Divide(start, 2) through Play: %v", err)
		return
	}
	var got map[string]uint64
	if protect(t, "Divide", func() { got, err = dv.Divide(context.Background(), "", 2) }) != nil {
		return
	}
	if err != nil {
		t.Errorf("Divide(\"\", 2): %v", err)
		return
	}
	if len(got) != len(want) {
		t.Errorf("Divide(\"\", 2) has %d root moves, %d are listed", len(got), len(want))
	}
	for _, e := range want {
		if n, ok := got[string(e.Move)]; !ok || n != e.Nodes {
			t.Errorf("Divide(\"\", 2)[%q] = %d (present %v), the listed moves give %d", e.Move, n, ok, e.Nodes)
		}
	}
}

// divide explains a perft mismatch move by move.
func (s *suite) divide(ctx context.Context, p sdk.Perfter, depth int) string {
	if depth < 2 {
		return ""
	}
	entries, err := Divide(s.v, s.start, depth)
	if err != nil {
		return "\n\tdivide: " + err.Error()
	}
	var b bytes.Buffer
	b.WriteString("\n\tmove: listed / Perfter")
	for _, e := range entries {
		got, err := p.Perft(ctx, e.Position, depth-1)
		mark := ""
		if err != nil || got != e.Nodes {
			mark = "  <--"
		}
		fmt.Fprintf(&b, "\n\t%s: %d / %d%s", e.Move, e.Nodes, got, mark)
		if err != nil {
			fmt.Fprintf(&b, " (%v)", err)
		}
	}
	return b.String()
}
