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
	if !mates(t, st, a.Best) || len(a.PV) == 0 || a.PV[0] != a.Best {
		t.Errorf("best %s, pv %v: want a mate (5c5b) first", a.Best, a.PV)
	}
	playsInTurn(t, st, a.PV)
}

// playsInTurn plays the line through the rules, each move by the seat
// whose turn it is.
func playsInTurn(t *testing.T, st sdk.State, pv []sdk.Move) (over bool) {
	t.Helper()
	for i, m := range pv {
		v, err := Variant{}.View(st)
		if err != nil {
			t.Fatal(err)
		}
		if len(v.ToMove) != 1 {
			t.Fatalf("line %v: move %d (%s) after the game's end", pv, i, m)
		}
		if st, _, err = (Variant{}).Play(st, v.ToMove[0], m); err != nil {
			t.Fatalf("line %v: move %d (%s) by seat %d: %v", pv, i, m, v.ToMove[0], err)
		}
	}
	v, err := Variant{}.View(st)
	if err != nil {
		t.Fatal(err)
	}
	return v.Status == sdk.Over
}

// TestAnalyseMidgame: a position with no mate gets a score per seat, a
// legal best move and a line of two rounds (eight plies, every seat's move
// in its turn) or to the game's end, within a small node budget.
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
	if len(a.PV) < 2 || a.PV[0] != a.Best {
		t.Fatalf("line %v, want several moves from %s", a.PV, a.Best)
	}
	if over := playsInTurn(t, st, a.PV); len(a.PV) != 1+pvPlies && !over {
		t.Errorf("line %v: %d moves, and the game goes on; want %d", a.PV, len(a.PV), 1+pvPlies)
	}
}
