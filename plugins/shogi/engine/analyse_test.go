package engine

import (
	"context"
	"testing"

	"github.com/banmen/banmen/sdk"
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
