package engine

import (
	"context"
	"testing"
	"time"

	"github.com/banmen/banmen/plugins/xiangqi/rules"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/extengine/fsftest"
)

// MateInThreePlies are mates in three plies (the attacker's second move
// mates): the first mates in five of mateInThree after their first two
// moves (Fairy-Stockfish's first move, then the defence the analysis
// expects).
var mateInThreePlies = []string{
	"2b1ka3/4a4/9/p3p3p/9/P7P/2nr5/4K2R1/9/3A5 b - - 6 36 moves d3e3 e2d2",
	"2b1ka3/4a4/9/p3p3p/9/P7P/2n6/5K1R1/3r5/3A5 b - - 8 37 moves c3e4 f2e2",
	"4R4/1r6R/5k3/p2C5/1PP3p2/9/4P1P1P/2N1B1N2/9/3AKAB2 w - - 2 42 moves i8b8 a6a5",
	"r2k5/4R4/b2c3r1/2p1p1PP1/p8/3R5/P1P1P4/6N2/9/2BAKAB2 w - - 7 24 moves h6h7 a9a8",
}

// TestAnalyseMates: mates in one and three plies are reported as mate 1
// and mate 3 for the side to move (the mirror for the other), and the
// principal variation, played out, wins for it.
func TestAnalyseMates(t *testing.T) {
	p := NewPlayer(Config{})
	var cases []struct {
		fen  string
		mate int
	}
	for _, tc := range mateInOne {
		cases = append(cases, struct {
			fen  string
			mate int
		}{tc.fen, 1})
	}
	for _, fen := range mateInThreePlies {
		cases = append(cases, struct {
			fen  string
			mate int
		}{fen, 3})
	}
	for _, tc := range cases {
		g := game(t, "fen "+tc.fen)
		side := g.Position().Side()
		a, err := Variant{Player: p}.Analyse(context.Background(), sdk.AnalyseRequest{State: state(t, "fen "+tc.fen), Limit: sdk.Limit{Nodes: 300_000}})
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Scores[side]; got.Mate != tc.mate || got.Seat != sdk.Seat(side) {
			t.Errorf("%s: score %v for seat %d, want mate %d", tc.fen, got, side, tc.mate)
		}
		if got := a.Scores[1-side]; got.Mate != -tc.mate {
			t.Errorf("%s: the other seat's score %v, want mate %d", tc.fen, got, -tc.mate)
		}
		if len(a.PV) != tc.mate || a.PV[0] != a.Best {
			t.Fatalf("%s: pv %v, want %d moves from %s", tc.fen, a.PV, tc.mate, a.Best)
		}
		for _, m := range a.PV {
			mv, err := rules.ParseUCCI(string(m))
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Play(mv); err != nil {
				t.Fatalf("%s: pv %v: %v", tc.fen, a.PV, err)
			}
		}
		if r := g.Result(); r == nil || len(r.Winners) != 1 || rules.Color(r.Winners[0]) != side {
			t.Errorf("%s: pv %v does not win", tc.fen, a.PV)
		}
	}
}

func state(t *testing.T, text string) sdk.State {
	t.Helper()
	st, _, err := rules.Variant{}.Import(rules.NotationFENUCCI, text)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestAnalyseExternal: with an external engine configured, the analysis
// is Fairy-Stockfish's (its UCCI mate count made plies), its line checked.
func TestAnalyseExternal(t *testing.T) {
	fsf := fsftest.Path(t)
	p := NewPlayer(Config{External: fsf, ExternalMoveTime: 200 * time.Millisecond})
	defer p.Close()
	waitWarm(t, p)
	tc := mateInOne[0]
	g := game(t, "fen "+tc.fen)
	a, err := p.Analyse(context.Background(), g, sdk.Limit{Depth: 4})
	if err != nil {
		t.Fatal(err)
	}
	side := g.Position().Side()
	if string(a.Best) != tc.fsf || a.Scores[side].Mate != 1 || len(a.PV) != 1 {
		t.Errorf("analysis %+v, want %s mate 1", a, tc.fsf)
	}
	if n := p.ext.calls.Load(); n != 1 {
		t.Errorf("the external engine answered %d of 1", n)
	}
}
