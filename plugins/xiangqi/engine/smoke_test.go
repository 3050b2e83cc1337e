package engine

import (
	"context"
	"testing"
	"time"

	"github.com/banmen/banmen/plugins/xiangqi/rules"
)

func TestSmokeNPS(t *testing.T) {
	for _, fen := range []string{rules.StartFEN, "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1"} {
		pos, _ := rules.ParseFEN(fen)
		s := newSearcher(19)
		s.reset(context.Background(), pos, nil, nil, Limits{Deadline: time.Now().Add(2 * time.Second)})
		t0 := time.Now()
		r := s.search()
		el := time.Since(t0)
		var pv []string
		for _, m := range r.PV {
			pv = append(pv, rules.UCCI(m))
		}
		t.Logf("depth %d score %d nodes %d in %v: %.0f nps, pv %v", r.Depth, r.Score, r.Nodes, el, float64(r.Nodes)/el.Seconds(), pv)
	}
}
