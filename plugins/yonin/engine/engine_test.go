package engine

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/banmen/banmen/plugins/yonin/rules"
	"github.com/banmen/banmen/sdk"
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
	m, err := Variant{}.Suggest(ctx, st, level)
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

func TestEveryLevelAnswersWithinItsDeadline(t *testing.T) {
	states := []sdk.State{importState(t, mateInOne), midgame(t, 40)}
	st, _, _ := Variant{}.Start(nil)
	states = append(states, st)
	for _, st := range states {
		for _, level := range allLevels {
			for _, d := range []time.Duration{200 * time.Millisecond, time.Nanosecond} {
				ctx, cancel := context.WithTimeout(context.Background(), d)
				if d == time.Nanosecond {
					<-ctx.Done()
				}
				t0 := time.Now()
				m, err := Variant{}.Suggest(ctx, st, level)
				took := time.Since(t0)
				cancel()
				if err != nil {
					t.Fatalf("%s, %v: %v", level, d, err)
				}
				if _, _, err := (Variant{}).Play(st, sdk.Seat(strings.Index("SWNE", string(m[0]))), m); err != nil {
					t.Errorf("%s, %v: suggested %s: %v", level, d, m, err)
				}
				// The deadline itself, plus a margin for a machine busy
				// with other tests (the search stops a fifth early).
				if limit := max(d, 20*time.Millisecond) + 60*time.Millisecond; took > limit {
					t.Errorf("%s took %v with a %v deadline", level, took, d)
				}
			}
		}
	}
}

func TestEasyAnswersAtOnceAndHardWithinTwoSeconds(t *testing.T) {
	st := midgame(t, 40)
	for _, c := range []struct {
		level sdk.Level
		limit time.Duration
	}{{sdk.Easy, 300 * time.Millisecond}, {sdk.Hard, 2100 * time.Millisecond}} {
		t0 := time.Now()
		suggest(t, st, c.level, time.Minute)
		if took := time.Since(t0); took > c.limit {
			t.Errorf("%s took %v, more than %v", c.level, took, c.limit)
		}
	}
}

func TestSuggestIsDeterministic(t *testing.T) {
	states := []sdk.State{midgame(t, 24)}
	st, _, _ := Variant{}.Start(nil)
	states = append(states, st)
	for _, st := range states {
		for _, level := range []sdk.Level{sdk.Easy, sdk.Medium} {
			a := suggest(t, st, level, time.Minute)
			b := suggest(t, st, level, time.Minute)
			if a != b {
				t.Errorf("%s: two moves for one state: %s, %s", level, a, b)
			}
		}
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
	// finds these at depth 3, within its time cap even under the race
	// detector.
	for _, text := range []string{
		"4Kn4/8Ss/9/8Ke/Kw5Ss2/9/9/9/4Ks4 s 2Gs - " + singles,
		"4Kn4/9/9/6Re2/Kw8/5+SsRe1Ke/9/7Rs1/4Ks4 s 2Gs - " + singles,
	} {
		st := importState(t, text)
		wins := mateInTwo(t, st)
		if len(wins) == 0 {
			t.Fatalf("the test position is wrong: no mate in two in %s", text)
		}
		if m := suggest(t, st, sdk.Hard, 3*time.Second); !slices.Contains(wins, m) {
			t.Errorf("Hard plays %s, not the mate in two %v", m, wins)
		}
		if m := suggest(t, st, sdk.Medium, 3*time.Second); slices.Contains(wins, m) {
			t.Errorf("Medium finds the mate in two %s too: the position no longer tells the levels apart", m)
		}
	}
}
