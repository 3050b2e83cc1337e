package engine

import (
	"context"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// TestAnalyseMateInOne: South can mate North at once; the analysis says
// mate 1 for South, mate -1 for North, and gives a mating move.
func TestAnalyseMateInOne(t *testing.T) {
	st := importState(t, mateInOne)
	a, err := Variant{}.Analyse(context.Background(), sdk.AnalyseRequest{State: st, Limit: sdk.Limit{Nodes: 50_000}})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Scores) != 4 {
		t.Fatalf("scores %v, want four", a.Scores)
	}
	if a.Scores[0].Mate != 1 || a.Scores[2].Mate != -1 || a.Scores[1].Mate != 0 || a.Scores[3].Mate != 0 {
		t.Errorf("scores %v, want South mate 1, North mate -1", a.Scores)
	}
	for i, s := range a.Scores {
		if s.Seat != sdk.Seat(i) {
			t.Errorf("score %d is seat %d's", i, s.Seat)
		}
	}
	if !mates(t, st, a.Best) || len(a.PV) != 1 || a.PV[0] != a.Best {
		t.Errorf("best %s, pv %v: want a mate (5c5b)", a.Best, a.PV)
	}
}

// TestAnalyseMidgame: a position with no mate gets a score per seat, and
// a legal best move, within a small node budget.
func TestAnalyseMidgame(t *testing.T) {
	st := midgame(t, 40)
	a, err := Variant{}.Analyse(context.Background(), sdk.AnalyseRequest{State: st, Limit: sdk.Limit{Nodes: 20_000}})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Scores) != 4 || a.Best == "" || a.Depth < 1 {
		t.Fatalf("analysis %+v", a)
	}
	v, _ := Variant{}.View(st)
	if _, _, err := (Variant{}).Play(st, v.ToMove[0], a.Best); err != nil {
		t.Errorf("best %s: %v", a.Best, err)
	}
}
