package rules

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
)

// perftCases are the shogi counts of shared/testdata/perft.md. Sources:
// YaneuraOu source/position.cpp unit test and qiita.com/ak11/items/8bd5f2bb0f5b014143c8
// (start position); YaneuraOu position.cpp "matsuri"; python-shogi
// tests/perft_test.py (most legal moves known; nifu).
var perftCases = []struct {
	name  string
	sfen  string
	depth int
	nodes uint64
	long  bool // run only without -short
}{
	{"start", StartSFEN, 1, 30, false},
	{"start", StartSFEN, 2, 900, false},
	{"start", StartSFEN, 3, 25470, false},
	{"start", StartSFEN, 4, 719731, false},
	{"start", StartSFEN, 5, 19861490, true},
	{"matsuri", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1", 1, 207, false},
	{"matsuri", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1", 2, 28684, false},
	{"matsuri", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1", 3, 4809015, true},
	{"most moves", "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", 1, 593, false},
	{"most moves", "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", 2, 105677, false},
	{"nifu", "4k4/9/9/9/9/9/9/9/9 b 16P 1", 1, 72, false},
}

func TestPerft(t *testing.T) {
	for _, tc := range perftCases {
		t.Run(fmt.Sprintf("%s/%d", tc.name, tc.depth), func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("deep perft runs without -short (and in tools/shogibench)")
			}
			p, err := ParseSFEN(tc.sfen)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Perft(context.Background(), tc.depth)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.nodes {
				t.Errorf("perft(%d) = %d, want %d; divide:\n%s", tc.depth, got, tc.nodes, divideText(&p, tc.depth))
			}
			// The full generator must agree with the bulk counter.
			if tc.depth <= 2 {
				if slow := slowPerft(&p, tc.depth); slow != tc.nodes {
					t.Errorf("generated perft(%d) = %d, want %d", tc.depth, slow, tc.nodes)
				}
			}
		})
	}
}

// slowPerft counts by generating every move at every ply, so that drop
// generation is checked against drop counting.
func slowPerft(p *Position, depth int) uint64 {
	moves := p.legalMoves(nil)
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for _, m := range moves {
		cap := p.do(m)
		n += slowPerft(p, depth-1)
		p.undo(m, cap)
	}
	return n
}

func divideText(p *Position, depth int) string {
	d := p.Divide(depth)
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s: %d\n", k, d[k])
	}
	return sb.String()
}
