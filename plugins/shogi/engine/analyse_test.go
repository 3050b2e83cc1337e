package engine

import (
	"context"
	"testing"
	"time"

	"github.com/banmen/banmen/plugins/shogi/rules"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/extengine/fsftest"
)

// TestAnalyseMates: the analysis reports the tsume problems as mate in 1
// and mate in 3 (plies, as tsume count) for the side to move (and the mirror for the other), with a
// first move that mates (checked through the rules: several have more than
// one solution).
func TestAnalyseMates(t *testing.T) {
	v := New(func(string) string { return "" })
	for _, tc := range []struct {
		sfens []string
		mate  int
	}{{mateInOne, 1}, {mateInThree, 3}} {
		for _, sfen := range tc.sfens {
			s := stateOf(t, "sfen "+sfen)
			a, err := v.Analyse(context.Background(), sdk.AnalyseRequest{State: s, Limit: sdk.Limit{Nodes: 300_000}})
			if err != nil {
				t.Fatal(err)
			}
			side := toMove(t, s)
			if got := a.Scores[side]; got.Mate != tc.mate || got.Seat != side {
				t.Errorf("%s: score %v for seat %d, want mate %d", sfen, got, side, tc.mate)
			}
			if got := a.Scores[1-side]; got.Mate != -tc.mate {
				t.Errorf("%s: the other seat's score %v, want mate %d", sfen, got, -tc.mate)
			}
			if tc.mate == 1 && !won(t, s, a.Best) || tc.mate == 3 && !matesInThree(t, s, a.Best) {
				t.Errorf("%s: best %s does not mate in %d", sfen, a.Best, tc.mate)
			}
			if len(a.PV) != tc.mate || a.PV[0] != a.Best {
				t.Errorf("%s: pv %v, want %d moves from %s", sfen, a.PV, tc.mate, a.Best)
			}
		}
	}
}

// TestAnalyseExternal: with BANMEN_SHOGI_ENGINE, the analysis is
// Fairy-Stockfish's, its line checked: mate in three with the only
// solution.
func TestAnalyseExternal(t *testing.T) {
	path := fsftest.Path(t)
	env := map[string]string{"BANMEN_SHOGI_ENGINE": path}
	v := New(func(k string) string { return env[k] })
	defer v.Close()
	s := stateOf(t, "sfen 8k/7L1/9/6L2/9/9/9/9/4K4 b LP 1")
	a, err := v.Analyse(context.Background(), sdk.AnalyseRequest{State: s, Limit: sdk.Limit{Depth: 6}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Best != "3d3c+" || a.Scores[0].Mate != 3 || a.Scores[1].Mate != -3 || len(a.PV) != 3 {
		t.Errorf("analysis %+v, want 3d3c+ mate 3", a)
	}
	spawned := 0
	for i := 0; i < externalProcesses; i++ {
		e := <-v.ext.idle
		spawned += e.Spawn
		defer func() { v.ext.idle <- e }()
	}
	if spawned == 0 {
		t.Error("the external engine never ran")
	}
}

// TestFindMate: the mate search proves the tsume problems' mates at their
// length, with a line of that many plies that wins when played, and finds
// no mate in a quiet opening nor where the mate begins with a quiet move
// (3d3c+ threatens, it does not check: the main search's business).
func TestFindMate(t *testing.T) {
	s := newMateSearcher()
	for _, tc := range []struct {
		sfens []string
		n     int
	}{{mateInOne, 1}, {mateInThree, 3}} {
		for _, sfen := range tc.sfens {
			if sfen == mateInThree[1] {
				l := lineOf(t, "sfen "+sfen)
				if n, line := findMate(context.Background(), s, l.Pos, 3, 1_000_000, time.Time{}); n != 0 {
					t.Errorf("%s: a mate of checks %d (%v), where there is none", sfen, n, line)
				}
				continue
			}
			l := lineOf(t, "sfen "+sfen)
			n, line := findMate(context.Background(), s, l.Pos, 9, 1_000_000, time.Time{})
			if n != tc.n || len(line) != n {
				t.Errorf("%s: mate %d, line %v; want mate %d", sfen, n, line, tc.n)
				continue
			}
			st := stateOf(t, "sfen "+sfen)
			for i, m := range line[:n-1] {
				v, _ := (rules.Variant{}).View(st)
				var err error
				if st, _, err = (rules.Variant{}).Play(st, v.ToMove[0], sdk.Move(m.USI())); err != nil {
					t.Fatalf("%s: move %d of %v: %v", sfen, i, line, err)
				}
			}
			if !won(t, st, sdk.Move(line[n-1].USI())) {
				t.Errorf("%s: the line %v does not end in a win", sfen, line)
			}
		}
	}
	l := lineOf(t, "startpos moves 7g7f 3c3d")
	if n, line := findMate(context.Background(), s, l.Pos, 5, 200_000, time.Time{}); n != 0 {
		t.Errorf("a mate %d (%v) in an opening", n, line)
	}
}
