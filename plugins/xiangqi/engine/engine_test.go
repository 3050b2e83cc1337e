package engine

import (
	"context"
	"maps"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/banmen/banmen/plugins/xiangqi/rules"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/extengine/fsftest"
	"github.com/banmen/banmen/sdk/sdktest"
)

// The puzzles were taken from games between our levels: Fairy-Stockfish
// 11.x (Debian's /usr/games/fairy-stockfish, UCCI mode, "go depth 9")
// reported "score mate 1" or "score mate 3" for the side to move, with the
// best move given. Stalemate loses in xiangqi, so a "mate" may end in one.
var mateInOne = []struct{ fen, fsf string }{
	{"5k3/1c1PP4/8b/9/r1P2NP1P/9/9/4B4/4A4/2BAK4 w - - 0 47", "f5g7"},
	{"2bakab2/9/2P6/9/9/9/1p2p1c1p/3K2p2/9/1n4B2 b - - 0 51", "e3d3"},
	{"3R5/2n1k1r1r/4baC2/2p1N3p/p8/2P6/P3P2cP/4B4/3R5/3AKAB2 w - - 1 27", "d1d8"},
	{"2b1ka3/4a4/9/p3p3p/9/P7P/6n2/5K1R1/3r5/3A5 b - - 12 39", "d1d2"},
	{"4R4/1R7/5k3/3C5/pPP6/6P2/4P3P/2N1B1N2/9/3AKAB2 w - - 0 44", "b5a5"},
	{"3akab2/9/2n1b4/p1p1p3p/6p2/P7P/6n2/5C3/4r1c2/c2K1Ar2 b - - 0 30", "g0f0"},
	{"1r1k5/4R4/b2c3P1/2p1p1P2/p8/3R5/P1P1P4/6N2/9/2BAKAB2 w - - 1 25", "d4d7"},
	{"3aka3/9/4b4/4p4/p5p1p/2p6/4n4/4K3c/9/7r1 b - - 1 33", "e3g2"},
}

var mateInThree = []struct{ fen, fsf string }{
	{"2b1ka3/4a4/9/p3p3p/9/P7P/2nr5/4K2R1/9/3A5 b - - 6 36", "d3e3"},
	{"2b1ka3/4a4/9/p3p3p/9/P7P/2n6/5K1R1/3r5/3A5 b - - 8 37", "c3e4"},
	{"4R4/1r6R/5k3/p2C5/1PP3p2/9/4P1P1P/2N1B1N2/9/3AKAB2 w - - 2 42", "i8b8"},
	{"r2k5/4R4/b2c3r1/2p1p1PP1/p8/3R5/P1P1P4/6N2/9/2BAKAB2 w - - 7 24", "h6h7"},
	{"2baka3/9/9/p3p1p1p/9/2p1c1P1P/P3n4/9/1C3N1r1/3K5 b - - 8 24", "h1f1"},
	{"3aka3/9/4b4/p3p1p2/P7p/2p3P2/4n4/8c/4K4/7r1 b - - 0 31", "e3g2"},
	{"rnbk1abC1/6n1r/4c1c2/p1p1C1N1P/8R/2PN5/P3P1P2/9/9/2BAKAB2 w - - 0 18", "i5d5"},
	{"7C1/3kaR3/1R6r/2p1C1p2/p1b5p/9/P1P1P1P1P/2N5N/9/2BAKAB2 w - - 6 26", "b7b8"},
}

func game(t *testing.T, text string) *rules.Game {
	t.Helper()
	st, _, err := rules.Variant{}.Import(rules.NotationFENUCCI, text)
	if err != nil {
		t.Fatal(err)
	}
	g, err := rules.DecodeState(st)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func choose(t *testing.T, p *Player, g *rules.Game, l sdk.Level, think time.Duration) rules.Move {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), think)
	defer cancel()
	m, err := p.Choose(ctx, g, l)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMateInOne(t *testing.T) {
	p := NewPlayer(Config{})
	for _, l := range []sdk.Level{sdk.Medium, sdk.Hard} {
		for _, tc := range mateInOne {
			g := game(t, "fen "+tc.fen)
			m := choose(t, p, g, l, 5*time.Second)
			if r := g.After(m); r == nil || len(r.Winners) != 1 || rules.Color(r.Winners[0]) != g.Position().Side() {
				t.Errorf("%s, %s: played %s, which does not win (Fairy-Stockfish: %s)", l, tc.fen, rules.UCCI(m), tc.fsf)
			}
		}
	}
}

// TestMateInThree plays each puzzle out: the level under test attacks, Medium
// defends, and the attacker must have won within five plies.
func TestMateInThree(t *testing.T) {
	p := NewPlayer(Config{})
	for _, l := range []sdk.Level{sdk.Medium, sdk.Hard} {
		for _, tc := range mateInThree {
			g := game(t, "fen "+tc.fen)
			attacker := g.Position().Side()
			var line []string
			for ply := 0; ply < 5 && !g.Over(); ply++ {
				lv := sdk.Medium
				if g.Position().Side() == attacker {
					lv = l
				}
				m := choose(t, p, g, lv, 5*time.Second)
				line = append(line, rules.UCCI(m))
				if err := g.Play(m); err != nil {
					t.Fatal(err)
				}
			}
			if r := g.Result(); r == nil || len(r.Winners) != 1 || rules.Color(r.Winners[0]) != attacker {
				t.Errorf("%s, %s: line %v does not mate in three (Fairy-Stockfish starts %s)", l, tc.fen, line, tc.fsf)
			}
		}
	}
}

func TestTakesHangingChariot(t *testing.T) {
	p := NewPlayer(Config{})
	for _, l := range []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard} {
		g := game(t, "fen 3k5/9/9/9/4r4/9/9/9/4R4/5K3 w - - 0 1")
		if m := choose(t, p, g, l, 5*time.Second); rules.UCCI(m) != "e1e5" {
			t.Errorf("%s played %s, not e1e5", l, rules.UCCI(m))
		}
	}
}

// TestDeadlines checks that every level answers a legal move with a short
// deadline and with one already passed, in a busy middlegame. How long it
// takes is a figure of the bench command (go -C tools run ./xiangqibench
// -levels), not a test: it measures the machine as much as the code.
// TestHonoursCancellation checks, without a clock, that a search stops when
// its context ends.
func TestDeadlines(t *testing.T) {
	v := Variant{}
	st, legal := middlegame(t)
	for _, l := range []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard} {
		for _, d := range []time.Duration{200 * time.Millisecond, -time.Second} {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			m, err := v.Suggest(ctx, st, toMove(t, st), l)
			cancel()
			if err != nil || !legal[m] {
				t.Errorf("%s with %v: %q, %v", l, d, m, err)
			}
		}
	}
}

// middlegame is a busy position and its legal moves.
func middlegame(t *testing.T) (sdk.State, map[sdk.Move]bool) {
	t.Helper()
	st, view, err := Variant{}.Import(rules.NotationFENUCCI, "fen r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	legal := map[sdk.Move]bool{}
	for _, l := range view.Legal {
		legal[l.Move] = true
	}
	return st, legal
}

// maxPollsAfterCancel is how often a level may look at its context once it
// has ended (today it never does: it stops at the look that sees the end).
// A level that went on would look at it every 256 nodes until its own
// budget ran out.
const maxPollsAfterCancel = 2

// TestHonoursCancellation: a context that ends while a level thinks (at its
// second look at the context, a few hundred nodes in) stops the search at
// the next look, and the level still answers a legal move. (Easy's one
// shallow pass may finish without looking: its first finishNodes nodes are
// immune to the clock, so that it always has a move.)
func TestHonoursCancellation(t *testing.T) {
	st, legal := middlegame(t)
	for _, l := range []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard} {
		ctx := sdktest.CancelAtPoll(2)
		m, err := Variant{}.Suggest(ctx, st, toMove(t, st), l)
		if err != nil || !legal[m] {
			t.Errorf("%s: %q, %v", l, m, err)
		}
		if n := ctx.Polls(); n < ctx.At && l != sdk.Easy || n > ctx.At+maxPollsAfterCancel {
			t.Errorf("%s: looked at the context %d times; want it cancelled at look %d and at most %d looks after",
				l, n, ctx.At, maxPollsAfterCancel)
		}
	}
}

// TestDeterministic: the same state and level, the same move. Easy and
// Medium are bounded by depth and nodes, so with their time caps lifted
// this holds on any machine, however loaded.
func TestDeterministic(t *testing.T) {
	withoutTimeCaps(t, sdk.Easy, sdk.Medium)
	v := Variant{}
	texts := []string{"startpos", "startpos moves h2e2 h9g7", "fen r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1"}
	for _, text := range texts {
		st, _, err := v.Import(rules.NotationFENUCCI, text)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []sdk.Level{sdk.Easy, sdk.Medium} {
			a, err1 := v.Suggest(context.Background(), st, toMove(t, st), l)
			b, err2 := v.Suggest(context.Background(), st, toMove(t, st), l)
			if err1 != nil || err2 != nil || a != b {
				t.Errorf("%s, %s: %q then %q (%v, %v)", text, l, a, b, err1, err2)
			}
		}
		// Hard's budget is in nodes, so with no clock in the way it repeats
		// itself too; the clock is left out to keep a loaded machine from
		// cutting one run shorter than the other.
		g := game(t, text)
		var moves [2]rules.Move
		for i := range moves {
			s := newSearcher(levels[sdk.Hard].ttBits)
			hashes, checks := g.History()
			s.reset(context.Background(), g.Position(), hashes, checks, Limits{Nodes: 300_000, SoftNodes: 100_000, Ends: ends(g, 0)})
			moves[i] = s.search().Move
		}
		if moves[0] != moves[1] {
			t.Errorf("%s, node-limited: %s then %s", text, rules.UCCI(moves[0]), rules.UCCI(moves[1]))
		}
	}
	if _, err := v.Suggest(context.Background(), mustStart(t), 0, "expert"); err == nil {
		t.Error("unknown level accepted")
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

func mustStart(t *testing.T) sdk.State {
	st, _, err := Variant{}.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestEasyVaries checks that Easy is not simply a weak search: along a game
// it sometimes plays a move other than its own best at depth two.
func TestEasyVaries(t *testing.T) {
	p := NewPlayer(Config{})
	g := game(t, "startpos")
	differ := 0
	for ply := 0; ply < 30 && !g.Over(); ply++ {
		easy := choose(t, p, g, sdk.Easy, time.Minute)
		s := newSearcher(12)
		hashes, checks := g.History()
		s.reset(context.Background(), g.Position(), hashes, checks, Limits{Depth: 2, Ends: ends(g, 0)})
		if best := s.search().Move; best != easy {
			differ++
		}
		if err := g.Play(easy); err != nil {
			t.Fatal(err)
		}
	}
	if differ < 3 || differ == 30 {
		t.Errorf("Easy left its best move %d times in 30", differ)
	}
}

// TestRepetition checks the search's game-rule awareness: it will not walk
// into a perpetual-check loss, and a side that is lost takes a draw by
// repetition when it can.
func TestRepetition(t *testing.T) {
	p := NewPlayer(Config{})
	// Red has checked with h9 and h8 throughout; h8h9 would make the third
	// occurrence with Red checking every move, a loss.
	g := game(t, "fen 4k2R1/9/9/9/9/9/9/9/9/3K5 b - - 0 1 moves e9e8 h9h8 e8e9 h8h9 e9e8 h9h8 e8e9")
	for _, l := range []sdk.Level{sdk.Medium, sdk.Hard} {
		if m := choose(t, p, g, l, 5*time.Second); rules.UCCI(m) == "h8h9" {
			t.Errorf("%s played h8h9, a perpetual-check loss", l)
		}
	}
}

func TestNoMoveWhenOver(t *testing.T) {
	v := Variant{}
	st, _, err := v.Import(rules.NotationFENUCCI, "fen 4k4/R8/9/9/9/9/9/9/9/3K4R w - - 0 1 moves i0i9")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Suggest(context.Background(), st, 0, sdk.Hard); err == nil {
		t.Error("Suggest after the end returned no error")
	}
}

// waitWarm waits until the pool's engines have started (seconds on a busy
// machine).
func waitWarm(t *testing.T, p *Player) {
	t.Helper()
	for t0 := time.Now(); len(p.ext.free) < externalEngines; time.Sleep(20 * time.Millisecond) {
		if time.Since(t0) > warmTimeout+5*time.Second {
			t.Fatal("the external engines did not start")
		}
	}
}

func TestExternalEngine(t *testing.T) {
	fsf := fsftest.Path(t)
	p := NewPlayer(ConfigFromEnv(func(k string) string {
		return map[string]string{EnvEngine: fsf, EnvMoveTime: "200ms"}[k]
	}))
	defer p.Close()
	if p.cfg.ExternalMoveTime != 200*time.Millisecond {
		t.Fatalf("move time %v", p.cfg.ExternalMoveTime)
	}
	waitWarm(t, p)
	for _, tc := range mateInOne[:3] {
		g := game(t, "fen "+tc.fen)
		m := choose(t, p, g, sdk.Hard, 3*time.Second)
		if r := g.After(m); r == nil || rules.Color(r.Winners[0]) != g.Position().Side() {
			t.Errorf("%s: played %s, which does not win", tc.fen, rules.UCCI(m))
		}
	}
	if n := p.ext.calls.Load(); n != 3 {
		t.Errorf("the external engine answered %d of 3 moves", n)
	}
	// Kill the engines behind the pool's back: the next request falls back
	// to the built-in search, and the engines restart for the one after.
	for _, e := range p.ext.all {
		if pid := e.PID(); pid != 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	g := game(t, "startpos moves h2e2")
	for i := 0; i < 2*externalEngines && p.ext.calls.Load() < 4; i++ {
		waitWarm(t, p)
		if m := choose(t, p, g, sdk.Hard, 3*time.Second); !g.Position().IsLegalMove(m) {
			t.Errorf("after a crash: %s", rules.UCCI(m))
		}
	}
	spawns := 0
	for _, e := range p.ext.all {
		spawns += e.Spawn
	}
	if n := p.ext.calls.Load(); n != 4 || spawns < externalEngines+1 {
		t.Errorf("after a crash: %d external answers, %d engine starts", n, spawns)
	}
}

// fakeEngine writes a UCCI engine that starts and answers the warm-up, but
// then never answers (mode "mute") or answers an illegal move ("illegal").
func fakeEngine(t *testing.T) string {
	path := t.TempDir() + "/engine.sh"
	script := `#!/bin/sh
while read -r l; do
	case "$l" in
	ucci) echo ucciok ;;
	isready) echo readyok ;;
	"go depth 1") echo "bestmove h0g2" ;;
	go*) [ "$1" = illegal ] && echo "bestmove a0a9" ;;
	esac
done
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExternalEngineFallback(t *testing.T) {
	fake := fakeEngine(t)
	for _, tc := range []struct {
		cmd  string
		warm bool // wait for the start first
	}{
		{"/nonexistent/engine --flag", false},
		{"/bin/false", false},
		{"/bin/cat", false}, // never says ucciok: still starting
		{fake + " mute", true},
		{fake + " illegal", true},
	} {
		p := NewPlayer(Config{External: tc.cmd, ExternalMoveTime: time.Second})
		if tc.warm {
			waitWarm(t, p)
		}
		g := game(t, "fen "+mateInOne[0].fen)
		// The engines that never answer are given up at the deadline (a
		// hang here is the failure), and the built-in search answers.
		m := choose(t, p, g, sdk.Hard, 1500*time.Millisecond)
		if r := g.After(m); r == nil {
			t.Errorf("%s: %s; want the built-in mate", tc.cmd, rules.UCCI(m))
		}
		if n := p.ext.calls.Load(); n != 0 {
			t.Errorf("%s: %d external answers", tc.cmd, n)
		}
		p.Close()
	}
}

func BenchmarkSearch(b *testing.B) {
	pos, _ := rules.ParseFEN("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1")
	s := newSearcher(19)
	var nodes uint64
	t0 := time.Now()
	for b.Loop() {
		s.reset(context.Background(), pos, nil, nil, Limits{Nodes: 1_000_000})
		nodes += s.search().Nodes
	}
	b.ReportMetric(float64(nodes)/time.Since(t0).Seconds(), "nodes/s")
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
