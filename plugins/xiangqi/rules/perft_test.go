package rules

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// perftTable is the xiangqi table of ../shared/testdata/perft.md, whose
// source is chessprogramming.org, "Chinese Chess Perft Results" (the second
// position is written there with H/E letters). Depth 5 of the start position
// runs in the bench command (tools/xiangqibench), not here.
var perftTable = []struct {
	fen    string
	counts []uint64 // counts[d-1] is depth d
}{
	{StartFEN, []uint64{44, 1920, 79666, 3290240}},
	{"r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1", []uint64{38, 1128, 43929, 1339047}},
}

func TestPerft(t *testing.T) {
	for _, tc := range perftTable {
		for d, want := range tc.counts {
			depth := d + 1
			if testing.Short() && depth > 3 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", tc.fen, depth), func(t *testing.T) {
				p, err := ParseFEN(tc.fen)
				if err != nil {
					t.Fatal(err)
				}
				got, err := p.perft(context.Background(), depth)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("perft(%d) = %d, want %d\n%s", depth, got, want, divideText(t, p, depth))
				}
			})
		}
	}
}

// divideText prints the count under every root move, to compare with
// ../shared/tools/fsf-divide.
func divideText(t *testing.T, p *Position, depth int) string {
	t.Helper()
	div, err := p.Divide(context.Background(), depth)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, e := range div {
		fmt.Fprintf(&b, "%s: %d\n", e.Move, e.Nodes)
	}
	return b.String()
}

func TestPerftVariant(t *testing.T) {
	n, err := Variant{}.Perft(context.Background(), "", 2)
	if err != nil || n != 1920 {
		t.Fatalf("Perft(start, 2) = %d, %v; want 1920", n, err)
	}
	if _, err := (Variant{}).Perft(context.Background(), "nonsense", 1); err == nil {
		t.Fatal("Perft accepted a bad FEN")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Variant{}).Perft(ctx, "", 5); err == nil {
		t.Fatal("Perft ignored a cancelled context")
	}
}
