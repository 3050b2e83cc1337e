package extengine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk/extengine"
)

func TestParseInfo(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
		want extengine.Info
	}{
		{"info depth 6 seldepth 4 multipv 1 score mate 3 nodes 972 nps 486000 tbhits 0 time 2 pv 3d3c+ 1a1b L*1i", true,
			extengine.Info{Depth: 6, Nodes: 972, Score: true, Mate: 3, MultiPV: 1, PV: []string{"3d3c+", "1a1b", "L*1i"}}},
		{"info depth 8 seldepth 11 multipv 1 score cp -2155 nodes 912 pv d3h3 e2e1", true,
			extengine.Info{Depth: 8, Nodes: 912, Score: true, CP: -2155, MultiPV: 1, PV: []string{"d3h3", "e2e1"}}},
		{"info depth 12 score cp 35 lowerbound nodes 10 pv 7g7f", true,
			extengine.Info{Depth: 12, Nodes: 10, Score: true, CP: 35, Bound: true, MultiPV: 1, PV: []string{"7g7f"}}},
		{"info depth 3 multipv 2 score mate -2 pv a b", true,
			extengine.Info{Depth: 3, Score: true, Mate: -2, MultiPV: 2, PV: []string{"a", "b"}}},
		{"info score mate + pv x", true, extengine.Info{Score: true, Mate: 128, MultiPV: 1, PV: []string{"x"}}},
		{"info nps 100 hashfull 3", true, extengine.Info{MultiPV: 1}},
		{"info string NNUE evaluation using nn.bin enabled", false, extengine.Info{}},
		{"info depth x", false, extengine.Info{}},
		{"info score cp", false, extengine.Info{}},
		{"info score wdl 1 2 3", false, extengine.Info{}},
		{"bestmove 7g7f", false, extengine.Info{}},
		{"", false, extengine.Info{}},
	} {
		got, ok := extengine.ParseInfo(tc.line)
		if ok != tc.ok || ok && !equalInfo(got, tc.want) {
			t.Errorf("%q: %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func equalInfo(a, b extengine.Info) bool {
	return a.Depth == b.Depth && a.Nodes == b.Nodes && a.Score == b.Score && a.CP == b.CP && a.Mate == b.Mate &&
		a.Bound == b.Bound && a.MultiPV == b.MultiPV && slices.Equal(a.PV, b.PV)
}

func TestMatePlies(t *testing.T) {
	for _, tc := range []struct {
		p          extengine.Protocol
		mate, want int
	}{{extengine.USI, 3, 3}, {extengine.USI, -2, -2}, {extengine.UCCI, 1, 1}, {extengine.UCCI, 3, 5}, {extengine.UCI, -2, -4}} {
		if got := extengine.MatePlies(tc.p, tc.mate); got != tc.want {
			t.Errorf("%s mate %d: %d plies, want %d", tc.p, tc.mate, got, tc.want)
		}
	}
}

// FuzzParseInfo: no line makes ParseInfo panic, and what it accepts is
// sane: an info line, numbers in range, a line of at most 128 moves, none
// empty or with spaces.
func FuzzParseInfo(f *testing.F) {
	for _, s := range []string{
		"info depth 6 seldepth 4 multipv 1 score mate 3 nodes 972 nps 486000 tbhits 0 time 2 pv 3d3c+ 1a1b L*1i",
		"info depth 12 score cp 35 lowerbound nodes 10 pv 7g7f",
		"info score mate - pv", "info multipv 0", "info string x", "info score cp +12 upperbound upperbound",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		in, ok := extengine.ParseInfo(line)
		if !ok {
			return
		}
		if !strings.HasPrefix(strings.TrimSpace(line), "info") {
			t.Fatalf("%q accepted", line)
		}
		if in.Depth < 0 || in.Nodes < 0 || in.MultiPV < 1 || len(in.PV) > 128 || in.Mate != 0 && in.Mate < -1<<11 {
			t.Fatalf("%q: %+v", line, in)
		}
		for _, m := range in.PV {
			if m == "" || strings.ContainsAny(m, " \t\n\r") {
				t.Fatalf("%q: move %q", line, m)
			}
		}
		_ = extengine.MatePlies(extengine.USI, in.Mate)
	})
}

// TestAnalyseWithFairyStockfish: the engine's mate in three (plies) of a
// tsume problem, with its line.
func TestAnalyseWithFairyStockfish(t *testing.T) {
	e := extengine.New(extengine.Config{Command: fsf(t), Protocol: extengine.USI})
	defer e.Close()
	best, in, err := e.Analyse(context.Background(), "sfen 8k/7L1/9/6L2/9/9/9/9/4K4 b LP 1", extengine.Limit{Depth: 6})
	if err != nil {
		t.Fatal(err)
	}
	if best != "3d3c+" || extengine.MatePlies(extengine.USI, in.Mate) != 3 || len(in.PV) != 3 || in.PV[0] != best {
		t.Errorf("best %s, info %+v; want 3d3c+, mate 3", best, in)
	}
}
