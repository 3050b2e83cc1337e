package engine

import (
	"context"
	"maps"
	"syscall"
	"testing"
	"time"

	"github.com/banmen/banmen/plugins/shogi/rules"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/extengine/fsftest"
	"github.com/banmen/banmen/sdk/sdktest"
)

// stateOf builds a game State from USI position text ("startpos moves ...",
// "sfen <SFEN> moves ...").
func stateOf(t testing.TB, text string) sdk.State {
	t.Helper()
	s, _, err := rules.Variant{}.Import(rules.FormatSFENUSI, text)
	if err != nil {
		t.Fatalf("import %q: %v", text, err)
	}
	return s
}

func lineOf(t testing.TB, text string) *rules.Line {
	t.Helper()
	l, err := rules.DecodeLine(stateOf(t, text))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// won plays m for the side to move and tells whether that ends the game in
// its favour.
func won(t *testing.T, s sdk.State, m sdk.Move) bool {
	t.Helper()
	v0, err := rules.Variant{}.View(s)
	if err != nil {
		t.Fatal(err)
	}
	seat := v0.ToMove[0]
	_, v, err := rules.Variant{}.Play(s, seat, m)
	if err != nil {
		t.Fatalf("%s is not legal: %v", m, err)
	}
	return v.Status == sdk.Over && len(v.Result.Winners) == 1 && v.Result.Winners[0] == seat
}

// matesInThree tells, by brute force through the rules alone, whether m
// forces a win on the third ply: after m, every reply allows a move that
// ends the game in the mover's favour.
func matesInThree(t *testing.T, s sdk.State, m sdk.Move) bool {
	t.Helper()
	v0, _ := rules.Variant{}.View(s)
	seat := v0.ToMove[0]
	s1, v1, err := rules.Variant{}.Play(s, seat, m)
	if err != nil {
		t.Fatalf("%s is not legal: %v", m, err)
	}
	if v1.Status == sdk.Over {
		return len(v1.Result.Winners) == 1 && v1.Result.Winners[0] == seat
	}
	for _, r := range v1.Legal {
		s2, v2, err := rules.Variant{}.Play(s1, seat^1, r.Move)
		if err != nil {
			t.Fatal(err)
		}
		if v2.Status == sdk.Over {
			return false
		}
		mates := false
		for _, x := range v2.Legal {
			if won(t, s2, x.Move) {
				mates = true
				break
			}
		}
		if !mates {
			return false
		}
	}
	return true
}

// Tsume problems found by a random search and confirmed with Fairy-Stockfish
// 14 (USI mode, `go depth 7`, MultiPV 5): it reports `score mate 1` or
// `score mate 3` (plies) for each. Several have more than one solution, so
// the tests check that the answer mates, through the rules.
var (
	mateInOne = []string{
		"8k/9/5Bl2/7L1/9/9/9/9/4K4 b L 1",
		"5k1pR/9/4+B4/3n5/9/9/9/9/4K4 b LP 1",
		"2k6/9/2+P1R4/9/9/9/9/9/4K4 b BP 1",
		"8k/7L1/5R3/9/9/9/9/9/4K4 b L 1",
		"4k4/9/2s3+P2/3l2+B2/9/9/9/9/4K4 b R 1",
		"7k1/8R/6+P2/9/9/9/9/9/4K4 b - 1",
		"6k2/7R1/9/9/9/9/9/9/4K4 b G 1",
		"8p/6+B1k/5P3/6n2/9/9/9/9/4K4 b BL 1",
		// Gote to move: the engine mates for either side.
		"4k4/9/9/9/9/9/2+b6/9/3K5 w g 1",
	}
	mateInThree = []string{
		"9/7nk/6+R2/6n1S/9/9/9/9/4K4 b RP 1",
		"8k/7L1/9/6L2/9/9/9/9/4K4 b LP 1", // only 3d3c+
		"8k/8l/7s1/5SS2/9/9/9/9/4K4 b BG 1",
		"5k3/9/3+R3L1/9/9/9/9/9/4K4 b GL 1",
		"9/2k6/9/R3sR3/9/9/9/9/4K4 b GP 1",
		"1+B2k4/7G1/9/9/9/9/9/9/4K4 b RG 1",
		"5k3/3+B4+B/5p3/9/9/9/9/9/4K4 b RP 1", // only 1b2c
		"9/8k/5R3/6l2/9/9/9/9/4K4 b BS 1",     // only S*1c
	}
)

func suggest(t *testing.T, v *Variant, s sdk.State, lv sdk.Level, d time.Duration) sdk.Move {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	m, err := v.Suggest(ctx, s, toMove(t, s), lv)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMateInOne(t *testing.T) {
	depthBounded(t)
	v := New(func(string) string { return "" })
	for _, sfen := range mateInOne {
		s := stateOf(t, "sfen "+sfen)
		for _, lv := range []sdk.Level{sdk.Medium, sdk.Hard} {
			m := suggest(t, v, s, lv, time.Minute)
			if !won(t, s, m) {
				t.Errorf("%s at %s: %s does not mate", sfen, lv, m)
			}
		}
	}
}

func TestMateInThree(t *testing.T) {
	depthBounded(t)
	v := New(func(string) string { return "" })
	for _, sfen := range mateInThree {
		s := stateOf(t, "sfen "+sfen)
		for _, lv := range []sdk.Level{sdk.Medium, sdk.Hard} {
			m := suggest(t, v, s, lv, time.Minute)
			if !matesInThree(t, s, m) {
				t.Errorf("%s at %s: %s does not mate in three", sfen, lv, m)
			}
		}
	}
}

// TestNoPawnDropMate: P*1b would mate but is forbidden (uchifuzume). Gote's
// king has no move already, and having no legal move loses, so any other
// quiet move wins at once.
func TestNoPawnDropMate(t *testing.T) {
	depthBounded(t)
	v := New(func(string) string { return "" })
	s := stateOf(t, "sfen 8k/6G2/9/7N1/9/9/9/9/4K4 b P 1")
	for _, lv := range []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard} {
		m := suggest(t, v, s, lv, time.Minute)
		if m == "P*1b" || !won(t, s, m) {
			t.Errorf("%s: %s", lv, m)
		}
	}
}

func TestDeclares(t *testing.T) {
	v := New(func(string) string { return "" })
	s := stateOf(t, "sfen +P+P+P+P5/RB2K4/+P+P+P+P5/9/9/9/9/9/8k b RB 1")
	if m := suggest(t, v, s, sdk.Easy, time.Second); m != rules.DeclareMove {
		t.Errorf("Suggest = %s, want %s", m, rules.DeclareMove)
	}
}

// TestTakesHangingPiece: every level takes a rook given away.
func TestTakesHangingPiece(t *testing.T) {
	v := New(func(string) string { return "" })
	s := stateOf(t, "sfen 4k4/9/9/9/4r4/9/9/4R4/4K4 b - 1")
	for _, lv := range []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard} {
		if m := suggest(t, v, s, lv, 3*time.Second); m != "5h5e" {
			t.Errorf("%s: %s, want 5h5e", lv, m)
		}
	}
}

// A middle game with many drops, the worst case for the search.
const matsuri = "sfen l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1"

// TestDeadlines: every level answers a legal move with a short deadline and
// with one already passed. How long it takes is a figure of the bench
// command (go -C tools run ./shogibench), not a test: it measures the
// machine as much as the code. TestHonoursCancellation checks, without a
// clock, that a search stops when its context ends.
func TestDeadlines(t *testing.T) {
	v := New(func(string) string { return "" })
	for _, pos := range []string{"startpos", matsuri} {
		s := stateOf(t, pos)
		for _, lv := range []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard} {
			for _, d := range []time.Duration{200 * time.Millisecond, 0} {
				ctx, cancel := context.WithTimeout(context.Background(), d)
				m, err := v.Suggest(ctx, s, toMove(t, s), lv)
				cancel()
				if err != nil {
					t.Fatalf("%s %v: %v", lv, d, err)
				}
				if _, _, err := (rules.Variant{}).Play(s, sdk.Seat(lineOf(t, pos).Pos.Side()), m); err != nil {
					t.Errorf("%s: illegal %s: %v", lv, m, err)
				}
			}
		}
	}
}

// maxPollsAfterCancel is how often a level may look at its context once it
// has ended (today it never does: it stops at the look that sees the end).
// A level that went on would look at it every 256 nodes until its own
// budget ran out.
const maxPollsAfterCancel = 2

// TestHonoursCancellation: a context that ends while a level thinks (at its
// second look at the context, a few hundred nodes in) stops the search at
// the next look, and the level still answers a legal move.
func TestHonoursCancellation(t *testing.T) {
	v := New(func(string) string { return "" })
	for _, pos := range []string{"startpos", matsuri} {
		s := stateOf(t, pos)
		for _, lv := range []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard} {
			ctx := sdktest.CancelAtPoll(2)
			m, err := v.Suggest(ctx, s, toMove(t, s), lv)
			if err != nil {
				t.Fatalf("%s: %v", lv, err)
			}
			if _, _, err := (rules.Variant{}).Play(s, sdk.Seat(lineOf(t, pos).Pos.Side()), m); err != nil {
				t.Errorf("%s: illegal %s: %v", lv, m, err)
			}
			if n := ctx.Polls(); n < ctx.At || n > ctx.At+maxPollsAfterCancel {
				t.Errorf("%s at %s: looked at the context %d times; want it cancelled at look %d and at most %d looks after",
					lv, pos, n, ctx.At, maxPollsAfterCancel)
			}
		}
	}
}

// TestDeterministic: the same state and level, the same move. Easy and
// Medium are bounded by nodes, so with their time caps lifted (and no
// deadline) this holds on any machine, however loaded; the search itself is
// checked on a hard position too.
func TestDeterministic(t *testing.T) {
	withoutTimeCaps(t, sdk.Easy, sdk.Medium)
	v := New(func(string) string { return "" })
	s := stateOf(t, "startpos moves 7g7f 3c3d")
	for _, lv := range []sdk.Level{sdk.Easy, sdk.Medium} {
		first, err := v.Suggest(context.Background(), s, toMove(t, s), lv)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			if m, err := v.Suggest(context.Background(), s, toMove(t, s), lv); err != nil || m != first {
				t.Errorf("%s: %s then %s (%v)", lv, first, m, err)
			}
		}
	}
	l := lineOf(t, matsuri)
	sr := NewSearcher(16)
	lim := Limits{Depth: levels[sdk.Medium].depth, Nodes: levels[sdk.Medium].nodes}
	first := sr.Search(context.Background(), l, lim)
	for i := 0; i < 2; i++ {
		if res := sr.Search(context.Background(), l, lim); res.Move != first.Move || res.Score != first.Score || res.Nodes != first.Nodes {
			t.Errorf("search: %+v then %+v", first, res)
		}
	}
}

// withoutTimeCaps lifts the time caps of the node-bounded levels for the
// rest of the test, so that their node budgets alone bound them: what they
// play then does not depend on the machine's speed or load. (The caps are
// for a busy server; the bench command prints how long the levels take.)
func withoutTimeCaps(t *testing.T, names ...sdk.Level) {
	t.Helper()
	saved := maps.Clone(levels)
	t.Cleanup(func() { levels = saved })
	levels = maps.Clone(levels)
	for _, name := range names {
		lv := levels[name]
		lv.think = time.Hour
		levels[name] = lv
	}
}

// TestEasyVaries: Easy does not always play the best move, but what it
// plays is near it (the seed is the position, so different positions give
// different choices).
func TestEasyVaries(t *testing.T) {
	v := New(func(string) string { return "" })
	differ := 0
	positions := []string{"startpos", "startpos moves 7g7f", "startpos moves 2g2f", "startpos moves 7g7f 3c3d", "startpos moves 2g2f 8c8d", "startpos moves 7g7f 8c8d"}
	for _, pos := range positions {
		s := stateOf(t, pos)
		e := suggest(t, v, s, sdk.Easy, 2*time.Second)
		sr := NewSearcher(16)
		res := sr.Search(context.Background(), lineOf(t, pos), Limits{Depth: 2, Margin: levels[sdk.Easy].margin})
		if string(e) != res.Move.USI() {
			differ++
		}
		near := false
		for _, m := range res.Near {
			near = near || m.USI() == string(e)
		}
		if !near {
			t.Errorf("%s: Easy played %s, not among %d moves near the best", pos, e, len(res.Near))
		}
	}
	if differ == 0 {
		t.Errorf("Easy played the best move in all %d positions", len(positions))
	}
}

// TestRepetition: a position met again is a draw, unless one side gave
// check with every move of the cycle: the perpetual checker loses, so the
// search never walks into that, and the checked side welcomes it.
func TestRepetition(t *testing.T) {
	tests := []struct {
		name   string
		checks []bool // whether each position's side to move was in check
		found  bool
		score  int
	}{
		{"no repeat yet", []bool{false, false, false}, false, 0},
		{"quiet cycle: draw", []bool{false, false, false, false, false}, true, 0},
		{"mixed checks: draw", []bool{false, true, false, false, true}, true, 0},
		// Positions 1 and 3 and 4... were reached by moves of the side that
		// moved last (n, n-2): all checks, so it loses.
		{"the last mover checked throughout", []bool{false, false, true, false, true}, true, mate - 4},
		{"the side to move checked throughout", []bool{false, true, false, true, false}, true, -mate + 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSearcher(4)
			s.keys = make([]uint64, len(tc.checks))
			for i := range s.keys {
				s.keys[i] = uint64(i + 100)
			}
			if len(tc.checks) >= 5 {
				s.keys[len(s.keys)-1] = s.keys[len(s.keys)-5]
			}
			s.checks = tc.checks
			found, score := s.repetition(4)
			if found != tc.found || score != tc.score {
				t.Errorf("repetition = %v, %d; want %v, %d", found, score, tc.found, tc.score)
			}
		})
	}
}

// TestExternalEngine: with BANMEN_SHOGI_ENGINE, Hard asks Fairy-Stockfish,
// whose move is checked, and still mates.
func TestExternalEngine(t *testing.T) {
	path := fsftest.Path(t)
	env := map[string]string{"BANMEN_SHOGI_ENGINE": path, "BANMEN_SHOGI_ENGINE_MOVETIME": "300ms"}
	v := New(func(k string) string { return env[k] })
	defer v.Close()
	if v.ext == nil {
		t.Fatal("no external engine configured")
	}
	s := stateOf(t, "sfen "+mateInThree[1])
	m := suggest(t, v, s, sdk.Hard, 3*time.Second)
	if !matesInThree(t, s, m) {
		t.Errorf("%s does not mate in three", m)
	}
	// The engine really answered: a process was started.
	spawned := 0
	for i := 0; i < externalProcesses; i++ {
		e := <-v.ext.idle
		spawned += e.Spawn
		defer func() { v.ext.idle <- e }()
	}
	if spawned == 0 {
		t.Error("the external engine was never started")
	}
	// A deadline shorter than the engine's move time still gets a legal
	// move (the engine is stopped, or not asked, and the built-in search
	// answers).
	s = stateOf(t, matsuri)
	m = suggest(t, v, s, sdk.Hard, 300*time.Millisecond)
	if _, _, err := (rules.Variant{}).Play(s, sdk.Seat(lineOf(t, matsuri).Pos.Side()), m); err != nil {
		t.Errorf("with a 300 ms deadline: illegal %s: %v", m, err)
	}
}

// TestExternalEngineFallback: a bogus command falls back to the built-in
// search.
func TestExternalEngineFallback(t *testing.T) {
	v := New(func(k string) string {
		if k == "BANMEN_SHOGI_ENGINE" {
			return "/nonexistent/engine --flag"
		}
		return ""
	})
	defer v.Close()
	s := stateOf(t, "sfen "+mateInOne[0])
	m := suggest(t, v, s, sdk.Hard, time.Second)
	if !won(t, s, m) {
		t.Errorf("%s does not mate", m)
	}
}

// BenchmarkSearch measures the search speed in a middle game: nodes per
// second of wall time, and per second of this process's CPU time (the
// honest figure on a shared machine).
func BenchmarkSearch(b *testing.B) {
	l := lineOf(b, matsuri)
	sr := NewSearcher(20)
	var nodes int64
	cpu0 := cpuTime()
	for b.Loop() {
		nodes += sr.Search(context.Background(), l, Limits{Depth: 6}).Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/(cpuTime()-cpu0).Seconds(), "nodes/cpu-s")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// depthBounded makes every level's answer independent of the machine for
// the rest of the test: Easy and Medium lose their time caps (their node
// budgets bound them), and Hard, bounded by time alone, searches five plies
// (a mate in three) instead, so a loaded machine cannot cut it short.
func depthBounded(t *testing.T) {
	t.Helper()
	withoutTimeCaps(t, sdk.Easy, sdk.Medium)
	hard := levels[sdk.Hard]
	hard.depth, hard.think = 5, time.Hour
	levels[sdk.Hard] = hard
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
