package engine

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/banmen/banmen/plugins/yonin/rules"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/sdktest"
)

var allLevels = []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard}

const singles = "singles,two_mates,mater 1"

// layout writes a position text from "square=piece" items such as "5i=Ks"
// and the remaining fields.
func layout(pieces, rest string) string {
	var grid [81]string
	for _, item := range strings.Fields(pieces) {
		sq, tok, _ := strings.Cut(item, "=")
		grid[int(sq[1]-'a')*9+9-int(sq[0]-'0')] = tok
	}
	var b strings.Builder
	for r := range 9 {
		if r > 0 {
			b.WriteByte('/')
		}
		empty := 0
		for c := range 9 {
			if grid[r*9+c] == "" {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteString(grid[r*9+c])
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
	}
	return b.String() + " " + rest
}

func importState(t *testing.T, text string) sdk.State {
	t.Helper()
	st, _, err := Variant{}.Import("yonin", text)
	if err != nil {
		t.Fatalf("position %q: %v", text, err)
	}
	return st
}

func suggest(t *testing.T, st sdk.State, level sdk.Level, d time.Duration) sdk.Move {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	m, err := Variant{}.Suggest(ctx, st, toMove(t, st), level)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mateInOne is a position where South mates North with the pawn push 5c5b.
var mateInOne = layout("5i=Ks 4c=Ss 6c=Ss 4a=Pn 6a=Pn 5a=Kn 9e=Kw 1e=Ke 5c=Ps", "s - - "+singles)

func TestEveryLevelTakesAMateInOne(t *testing.T) {
	st := importState(t, mateInOne)
	for _, level := range allLevels {
		if m := suggest(t, st, level, 3*time.Second); !mates(t, st, m) {
			t.Errorf("%s plays %s, not a mate (5c5b)", level, m)
		}
	}
}

// TestMateInOneOnTheSecondMate: a mate that ends the game in first place is
// taken too (East has already been mated by South).
func TestTakesTheWinningSecondMate(t *testing.T) {
	text := layout("5i=Ks 4c=Ss 6c=Ss 4a=Pn 6a=Pn 5a=Kn 9e=Kw 1e=~Ke 5c=Ps 7g=Gw 8h=Pw", "s - es "+singles)
	st := importState(t, text)
	for _, level := range allLevels {
		if m := suggest(t, st, level, 3*time.Second); !mates(t, st, m) {
			t.Errorf("%s plays %s, not the winning mate (5c5b)", level, m)
		}
	}
}

// mates reports whether m mates somebody.
func mates(t *testing.T, st sdk.State, m sdk.Move) bool {
	t.Helper()
	st2, v, err := Variant{}.Play(st, sdk.Seat(strings.Index("SWNE", string(m[0]))), m)
	if err != nil {
		t.Fatalf("%s: %v", m, err)
	}
	_ = st2
	return len(v.Eliminated) > 0 && len(v.Eliminated) > eliminated(t, st)
}

func eliminated(t *testing.T, st sdk.State) int {
	v, err := Variant{}.View(st)
	if err != nil {
		t.Fatal(err)
	}
	return len(v.Eliminated)
}

// matedNext lists South's moves after which the next seat to move can mate
// South at once.
func matedNext(t *testing.T, st sdk.State) (losing, all []sdk.Move) {
	t.Helper()
	g, err := rules.DecodeState(st)
	if err != nil {
		t.Fatal(err)
	}
	p := g.Position()
	seat := p.Turn()
	for _, m := range g.LegalMoves() {
		q := p
		q.Play(m)
		text := rules.MoveText(seat, m)
		all = append(all, text)
		if !q.Live(seat) {
			losing = append(losing, text)
			continue
		}
		for _, r := range q.LegalMoves(nil) {
			q2 := q
			q2.Play(r)
			if !q2.Live(seat) {
				losing = append(losing, text)
				break
			}
		}
	}
	return losing, all
}

func TestMediumAndHardAvoidAMateInOne(t *testing.T) {
	// West threatens R*1a (or any rook drop on file 1), mating South's
	// cornered king, whose other neighbours North's pawn and gold hold.
	// Only a few South moves meet it.
	text := layout("1i=Ks 9e=Kw 5a=Kn 3a=Ke 2h=Pn 3g=Gn 7i=Ps 3i=Ss", "s Rw - "+singles)
	st := importState(t, text)
	losing, all := matedNext(t, st)
	if len(losing) == 0 || len(losing) == len(all) {
		t.Fatalf("the test position is wrong: %d of %d South moves lose at once", len(losing), len(all))
	}
	t.Logf("%d of %d moves lose: %v", len(losing), len(all), losing)
	for _, level := range []sdk.Level{sdk.Medium, sdk.Hard} {
		if m := suggest(t, st, level, 3*time.Second); slices.Contains(losing, m) {
			t.Errorf("%s plays %s, which lets West mate at once", level, m)
		}
	}
}

// midgame is a position some moves into a game of Easy players, with
// pieces in hand: where the search is slowest.
func midgame(t *testing.T, plies int) sdk.State {
	t.Helper()
	g, err := rules.NewGame(nil)
	if err != nil {
		t.Fatal(err)
	}
	for range plies {
		st := g.State()
		m := suggest(t, st, sdk.Easy, 2*time.Second)
		if err := g.Play(g.ToMove(), m); err != nil {
			t.Fatal(err)
		}
		if g.ToMove() == sdk.NoSeat {
			break
		}
	}
	return g.State()
}

// TestEveryLevelAnswersWithinItsDeadline: every level answers a legal move
// with a short deadline and with one already passed. How long it takes is a
// figure of the bench command (go -C tools run ./yoninbench -levels),
// not a test: it measures the machine as much as the code.
// TestHonoursCancellation checks, without a clock, that a search stops when
// its context ends.
func TestEveryLevelAnswersWithinItsDeadline(t *testing.T) {
	for _, st := range deadlineStates(t) {
		for _, level := range allLevels {
			for _, d := range []time.Duration{200 * time.Millisecond, time.Nanosecond} {
				ctx, cancel := context.WithTimeout(context.Background(), d)
				if d == time.Nanosecond {
					<-ctx.Done()
				}
				m, err := Variant{}.Suggest(ctx, st, toMove(t, st), level)
				cancel()
				if err != nil {
					t.Fatalf("%s, %v: %v", level, d, err)
				}
				if _, _, err := (Variant{}).Play(st, sdk.Seat(strings.Index("SWNE", string(m[0]))), m); err != nil {
					t.Errorf("%s, %v: suggested %s: %v", level, d, m, err)
				}
			}
		}
	}
}

func deadlineStates(t *testing.T) []sdk.State {
	states := []sdk.State{importState(t, mateInOne), midgame(t, 40)}
	st, _, _ := Variant{}.Start(nil)
	return append(states, st)
}

// maxPollsAfterCancel is how often a level may look at its context once it
// has ended (today it never does: it stops at the look that sees the end).
// A level that went on would look at it every 256 nodes until its own
// budget ran out.
const maxPollsAfterCancel = 2

// TestHonoursCancellation: a context that ends while a level thinks (at its
// second look at the context, a few hundred nodes in) stops the search at
// the next look, and the level still answers a legal move. (Easy and Medium
// often finish in fewer nodes than that: Hard must look.)
func TestHonoursCancellation(t *testing.T) {
	for _, st := range deadlineStates(t) {
		for _, level := range allLevels {
			ctx := sdktest.CancelAtPoll(2)
			m, err := Variant{}.Suggest(ctx, st, toMove(t, st), level)
			if err != nil {
				t.Fatalf("%s: %v", level, err)
			}
			if _, _, err := (Variant{}).Play(st, sdk.Seat(strings.Index("SWNE", string(m[0]))), m); err != nil {
				t.Errorf("%s: suggested %s: %v", level, m, err)
			}
			if n := ctx.Polls(); n < ctx.At && level == sdk.Hard || n > ctx.At+maxPollsAfterCancel {
				t.Errorf("%s: looked at the context %d times; want it cancelled at look %d and at most %d looks after",
					level, n, ctx.At, maxPollsAfterCancel)
			}
		}
	}
}

// TestSuggestIsDeterministic: the same state and level, the same move.
// Easy and Medium are bounded by depth and nodes, so with their time caps
// lifted (and no deadline) this holds on any machine, however loaded.
func TestSuggestIsDeterministic(t *testing.T) {
	states := []sdk.State{midgame(t, 24)}
	st, _, _ := Variant{}.Start(nil)
	states = append(states, st)
	withoutTimeCaps(t, sdk.Easy, sdk.Medium)
	for _, st := range states {
		for _, level := range []sdk.Level{sdk.Easy, sdk.Medium} {
			a, errA := Variant{}.Suggest(context.Background(), st, toMove(t, st), level)
			b, errB := Variant{}.Suggest(context.Background(), st, toMove(t, st), level)
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			if a != b {
				t.Errorf("%s: two moves for one state: %s, %s", level, a, b)
			}
		}
	}
}

// withoutTimeCaps lifts the time caps of the node-bounded levels for the
// rest of the test, so that their node budgets alone bound them: what they
// play then does not depend on the machine's speed or load. (The caps are
// for a busy server; the bench command prints how long the levels take.)
func withoutTimeCaps(t *testing.T, names ...sdk.Level) {
	saved := maps.Clone(levels)
	t.Cleanup(func() { levels = saved })
	levels = maps.Clone(levels)
	for _, name := range names {
		lv := levels[name]
		lv.think = time.Hour
		levels[name] = lv
	}
}

func TestLevelsDiffer(t *testing.T) {
	// Easy's noise must make it play differently from Medium somewhere in
	// a few positions, or the levels would feel the same.
	differ := false
	for _, plies := range []int{8, 16, 24, 32} {
		st := midgame(t, plies)
		if suggest(t, st, sdk.Easy, time.Minute) != suggest(t, st, sdk.Medium, time.Minute) {
			differ = true
			break
		}
	}
	if !differ {
		t.Error("Easy and Medium chose the same moves in every position")
	}
}

// playOut plays a whole game with the level of each seat and returns its
// result and length.
func playOut(t *testing.T, seats [4]sdk.Level, think time.Duration, maxPlies int) (*sdk.Result, int) {
	t.Helper()
	g, err := rules.NewGame(nil)
	if err != nil {
		t.Fatal(err)
	}
	for ply := range maxPlies {
		seat := g.ToMove()
		if seat == sdk.NoSeat {
			return g.Result(), ply
		}
		m := suggest(t, g.State(), seats[seat], think)
		if err := g.Play(seat, m); err != nil {
			t.Fatalf("ply %d: %s suggested %s: %v", ply, seats[seat], m, err)
		}
	}
	t.Fatalf("no result after %d plies", maxPlies)
	return nil, 0
}

func TestYoninComputersFinishGames(t *testing.T) {
	games := [][4]sdk.Level{
		{sdk.Easy, sdk.Easy, sdk.Easy, sdk.Easy},
		{sdk.Easy, sdk.Easy, sdk.Easy, sdk.Easy},
		{sdk.Medium, sdk.Easy, sdk.Hard, sdk.Easy},
	}
	think := []time.Duration{30 * time.Millisecond, 60 * time.Millisecond, 40 * time.Millisecond}
	if testing.Short() {
		games = games[:1]
	}
	for i, seats := range games {
		res, plies := playOut(t, seats, think[i], 600)
		if res == nil || len(res.Places) != 4 {
			t.Fatalf("game %d: bad result %+v", i, res)
		}
		seen := map[int]bool{}
		for _, pl := range res.Places {
			if pl < 1 || pl > 4 {
				t.Fatalf("game %d: places %v", i, res.Places)
			}
			seen[pl] = true
		}
		if !seen[1] {
			t.Fatalf("game %d: nobody first: %v", i, res.Places)
		}
		t.Logf("game %d %v: %d plies, %s, places %v", i, seats, plies, res.Reason, res.Places)
	}
}

// mateInTwo lists the seat to move's checks on its predecessor after which
// every answer leaves it a mate in one (check priority gives the move back
// to it at once, the answering seat sitting just before it).
func mateInTwo(t *testing.T, st sdk.State) []sdk.Move {
	t.Helper()
	g, err := rules.DecodeState(st)
	if err != nil {
		t.Fatal(err)
	}
	p := g.Position()
	seat := p.Turn()
	mateInOne := func(p *rules.Position) bool {
		for _, m := range p.LegalMoves(nil) {
			q := *p
			q.Play(m)
			if q.Score(seat) > p.Score(seat) {
				return true
			}
		}
		return false
	}
	if mateInOne(&p) {
		t.Fatal("the test position is wrong: it has a mate in one")
	}
	var out []sdk.Move
	for _, m := range p.LegalMoves(nil) {
		q := p
		q.Play(m)
		if q.Turn() != (seat+3)&3 || !q.InCheck(q.Turn()) {
			continue
		}
		wins := true
		for _, r := range q.LegalMoves(nil) {
			q2 := q
			q2.Play(r)
			if q2.Turn() != seat || !mateInOne(&q2) {
				wins = false
				break
			}
		}
		if wins {
			out = append(out, rules.MoveText(seat, m))
		}
	}
	return out
}

func TestHardFindsAMateInTwoThatMediumMisses(t *testing.T) {
	// South mates East, the seat before it, in two: a check East must
	// answer, then a mate. Medium sees only its move and the answer; Hard
	// finds these at depth 3. The levels' time caps are lifted and Hard
	// stops at depth 3, so that a slow machine (or the race detector)
	// cannot cut Hard short: this is about what the levels see, not how
	// fast they see it.
	uncapped := func(level sdk.Level, st sdk.State) sdk.Move {
		g, err := rules.DecodeState(st)
		if err != nil {
			t.Fatal(err)
		}
		cfg := levels[level]
		cfg.think = time.Hour
		if level == sdk.Hard {
			cfg.depth = 3
		}
		p := g.Position()
		return rules.MoveText(p.Turn(), Choose(context.Background(), g, cfg))
	}
	for _, text := range []string{
		"4Kn4/8Ss/9/8Ke/Kw5Ss2/9/9/9/4Ks4 s 2Gs - " + singles,
		"4Kn4/9/9/6Re2/Kw8/5+SsRe1Ke/9/7Rs1/4Ks4 s 2Gs - " + singles,
	} {
		st := importState(t, text)
		wins := mateInTwo(t, st)
		if len(wins) == 0 {
			t.Fatalf("the test position is wrong: no mate in two in %s", text)
		}
		if m := uncapped(sdk.Hard, st); !slices.Contains(wins, m) {
			t.Errorf("Hard plays %s, not the mate in two %v", m, wins)
		}
		if m := uncapped(sdk.Medium, st); slices.Contains(wins, m) {
			t.Errorf("Medium finds the mate in two %s too: the position no longer tells the levels apart", m)
		}
	}
}

// toMove is the seat to move in s, the seat Suggest is asked to play for.
func toMove(t testing.TB, s sdk.State) sdk.Seat {
	t.Helper()
	v, err := (&Variant{}).View(s)
	if err != nil || len(v.ToMove) == 0 {
		t.Fatalf("no seat to move: %v", err)
	}
	return v.ToMove[0]
}

// TestSuggestForCheckPriority asks for the move of a seat that check
// priority put to move out of the clockwise order: South's rook checks
// North, so North answers before West. The computer plays North then (the
// host plays computer seats by name), and refuses every other seat, West
// included, whose turn it would have been.
func TestSuggestForCheckPriority(t *testing.T) {
	v := Variant{}
	text := layout("5i=Ks 4d=Rs 9i=Kw 5a=Kn 1i=Ke", "s - - "+singles) + "\nS:4d5d\n"
	st, view, err := v.Import("yonin", text)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(view.ToMove, []sdk.Seat{2}) || !slices.Contains(view.Notices, "notice.check_priority") {
		t.Fatalf("to move %v, notices %v; want North by check priority", view.ToMove, view.Notices)
	}
	for _, level := range allLevels {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		m, err := v.Suggest(ctx, st, 2, level)
		cancel()
		if err != nil {
			t.Fatalf("%s: Suggest(North): %v", level, err)
		}
		if !slices.ContainsFunc(view.Legal, func(l sdk.LegalMove) bool { return l.Seat == 2 && l.Move == m }) {
			t.Errorf("%s: Suggest(North) = %q, not one of North's legal moves", level, m)
		}
		if _, _, err := v.Play(st, 2, m); err != nil {
			t.Errorf("%s: Play(North, %q): %v", level, m, err)
		}
	}
	for _, seat := range []sdk.Seat{0, 1, 3, -1, 4} {
		m, err := v.Suggest(context.Background(), st, seat, sdk.Easy)
		if re, ok := sdk.AsRuleError(err); !ok || re.Code != sdk.CodeNotYourTurn {
			t.Errorf("Suggest(seat %d) while North answers a check = %q, %v; want not_your_turn", seat, m, err)
		}
	}
}

// TestLevelSetting: the plugin (rules and engine) declares the computer's
// level as a host setting and Start accepts each level, refusing others.
func TestLevelSetting(t *testing.T) {
	v := Variant{}
	spec, ok := v.Describe().HostSetting(sdk.SettingLevel)
	if !ok || !slices.Equal(spec.Choices, []string{"easy", "medium", "hard"}) {
		t.Fatalf("level setting %+v, %v", spec, ok)
	}
	if _, ok := (rules.Variant{}).Describe().HostSetting(sdk.SettingLevel); ok {
		t.Error("declaring the engine's level changed the rules' description")
	}
	for _, l := range allLevels {
		if _, view, err := v.Start(sdk.Options{sdk.SettingLevel: string(l), sdk.SettingFirstSeat: "1"}); err != nil || !slices.Equal(view.ToMove, []sdk.Seat{1}) {
			t.Errorf("Start at level %s: %v, to move %v", l, err, view.ToMove)
		}
	}
	if _, _, err := v.Start(sdk.Options{sdk.SettingLevel: "expert"}); err == nil {
		t.Error("Start accepted the level expert")
	}
}
