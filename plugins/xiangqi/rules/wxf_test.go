package rules

import (
	"math/rand/v2"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// Tandem positions: both generals tucked away on files d and f.
const (
	tandemRooks  = "5k3/9/9/4R4/9/9/4R4/9/9/3K5 w - - 0 1"
	tandemBlack  = "5k3/9/9/4r4/9/9/4r4/9/9/3K5 b - - 0 1"
	tandemHorses = "5k3/9/9/9/9/9/4N4/9/4N4/3K5 w - - 0 1"
	threePawns   = "5k3/9/4P4/4P4/4P4/9/9/9/9/3K5 w - - 0 1"
	fourPawns    = "5k3/4P4/4P4/4P4/4P4/9/9/9/9/3K5 w - - 0 1"
	fivePawns    = "P4k3/P8/P8/P8/P8/9/9/9/9/3K5 w - - 0 1"
	twoFiles     = "5k3/9/2P6/2P3P2/2P3P2/9/9/9/9/3K5 w - - 0 1"
	blackPawns   = "5k3/9/9/9/9/4p4/4p4/9/9/3K5 b - - 0 1"
	// Two advisors on file d, two elephants on file c: the direction tells
	// them apart.
	tandemGuards = "3k5/9/9/9/9/2B6/9/3A5/9/2BA1K3 w - - 0 1"
)

func TestWXF(t *testing.T) {
	tests := []struct{ fen, ucci, wxf string }{
		{StartFEN, "h2e2", "C2.5"},
		{StartFEN, "b0c2", "H8+7"},
		{StartFEN, "a0a1", "R9+1"},
		{StartFEN, "e3e4", "P5+1"},
		{StartFEN, "f0e1", "A4+5"},
		{StartFEN, "g0e2", "E3+5"},
		{StartFEN, "e0e1", "K5+1"},
		{StartFEN, "h2h9", "C2+7"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1", "h9g7", "H8+7"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1", "b7e7", "C2.5"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1", "a9a8", "R1+1"},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1", "d9e8", "A4+5"},
		{"1nbakabnr/r8/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1", "a8a9", "R1-1"},
		{tandemRooks, "e6d6", "R+.6"},
		{tandemRooks, "e3e2", "R--1"},
		{tandemRooks, "e6e5", "R+-1"},
		{tandemBlack, "e3e2", "R++1"},
		{tandemBlack, "e6g6", "R-.7"},
		{tandemHorses, "e3d5", "H++6"},
		{tandemHorses, "e1f3", "H-+4"},
		{threePawns, "e7d7", "P+.6"},
		{threePawns, "e6d6", "P5.6"},
		{threePawns, "e5d5", "P-.6"},
		{threePawns, "e7e8", "P++1"},
		{fourPawns, "e8d8", "++.6"},
		{fourPawns, "e7d7", "P+.6"},
		{fourPawns, "e6d6", "P-.6"},
		{fourPawns, "e5d5", "--.6"},
		{fivePawns, "a9b9", "++.8"},
		{fivePawns, "a8b8", "P+.8"},
		{fivePawns, "a7b7", "P9.8"},
		{fivePawns, "a6b6", "P-.8"},
		{fivePawns, "a5b5", "--.8"},
		{twoFiles, "c7b7", "7+.8"},
		{twoFiles, "c6b6", "77.8"},
		{twoFiles, "c5b5", "7-.8"},
		{twoFiles, "g6h6", "3+.2"},
		{twoFiles, "g5h5", "3-.2"},
		{blackPawns, "e3d3", "P+.4"},
		{blackPawns, "e4f4", "P-.6"},
		{tandemGuards, "d0e1", "A6+5"},
		{tandemGuards, "d2e1", "A6-5"},
		{tandemGuards, "c0e2", "E7+5"},
		{tandemGuards, "c4e2", "E7-5"},
		{tandemGuards, "c4a2", "E7-9"},
	}
	for _, tc := range tests {
		p := mustFEN(t, tc.fen)
		m, err := p.ParseLegalUCCI(tc.ucci)
		if err != nil {
			t.Errorf("%s in %s: %v", tc.ucci, tc.fen, err)
			continue
		}
		if got := p.WXF(m); got != tc.wxf {
			t.Errorf("WXF of %s in %s = %q, want %q", tc.ucci, tc.fen, got, tc.wxf)
		}
		if back, err := p.ParseWXF(tc.wxf); err != nil || back != m {
			t.Errorf("ParseWXF(%q) in %s = %s, %v; want %s", tc.wxf, tc.fen, UCCI(back), err, tc.ucci)
		}
	}
}

// TestWXFUnique checks that in many positions every legal move has its own
// text, so that a WXF record always reads back as it was played.
func TestWXFUnique(t *testing.T) {
	check := func(p *Position) {
		seen := map[string]Move{}
		for _, m := range p.LegalMoves() {
			w := p.WXF(m)
			if prev, dup := seen[w]; dup {
				t.Errorf("%s: %s and %s are both %q", p.FEN(), UCCI(prev), UCCI(m), w)
			}
			seen[w] = m
		}
	}
	for _, fen := range []string{StartFEN, perftTable[1].fen, tandemRooks, tandemBlack, tandemHorses,
		threePawns, fourPawns, fivePawns, twoFiles, blackPawns, tandemGuards} {
		check(mustFEN(t, fen))
	}
	// And along seeded random games.
	r := rand.New(rand.NewPCG(7, 7))
	for range 20 {
		g := NewGame(StartPosition())
		for len(g.moves) < 200 && !g.Over() {
			check(&g.pos)
			moves := g.pos.LegalMoves()
			if err := g.Play(moves[r.IntN(len(moves))]); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestParseWXFSpellings(t *testing.T) {
	tests := []struct{ fen, text, ucci string }{
		{StartFEN, "C2=5", "h2e2"},
		{StartFEN, "c2.5", "h2e2"},
		{StartFEN, " C2.5 ", "h2e2"},
		{StartFEN, "N8+7", "b0c2"},
		{StartFEN, "B3+5", "g0e2"},
		{tandemRooks, "+R.6", "e6d6"},
		{tandemRooks, "-R-1", "e3e2"},
	}
	for _, tc := range tests {
		p := mustFEN(t, tc.fen)
		m, err := p.ParseWXF(tc.text)
		if err != nil || UCCI(m) != tc.ucci {
			t.Errorf("ParseWXF(%q) = %s, %v; want %s", tc.text, UCCI(m), err, tc.ucci)
		}
	}
	p := StartPosition()
	for _, bad := range []string{"", "C2", "C2.55", "X2.5", "C0.5", "C2*5", "C2.0"} {
		if _, err := p.ParseWXF(bad); !hasCode(err, sdk.CodeBadMove) {
			t.Errorf("ParseWXF(%q) = %v, want bad_move", bad, err)
		}
	}
	for _, illegal := range []string{"C2.9", "R9+3", "H8+6", "C2+8", "P5+2", "R+.1"} {
		if _, err := p.ParseWXF(illegal); !hasCode(err, sdk.CodeIllegalMove) {
			t.Errorf("ParseWXF(%q) = %v, want illegal_move", illegal, err)
		}
	}
}

// FuzzWXF reads any text as a WXF move in a few positions: a move it accepts
// must print to a text that reads back as the same move.
func FuzzWXF(f *testing.F) {
	positions := []*Position{}
	for _, fen := range []string{StartFEN, tandemRooks, fivePawns, twoFiles, blackPawns} {
		positions = append(positions, mustFEN(f, fen))
	}
	for _, s := range []string{"C2.5", "H8+7", "R+.6", "+R.6", "++.8", "77.8", "c2=5", "P-.6", "", "R--1"} {
		for i := range positions {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, i uint8, s string) {
		p := positions[int(i)%len(positions)]
		m, err := p.ParseWXF(s)
		if err != nil {
			if !hasCode(err, sdk.CodeBadMove) && !hasCode(err, sdk.CodeIllegalMove) {
				t.Fatalf("ParseWXF(%q): %v", s, err)
			}
			return
		}
		out := p.WXF(m)
		if back, err := p.ParseWXF(out); err != nil || back != m {
			t.Fatalf("ParseWXF(%q) = %s printed %q, which reads %s, %v", s, UCCI(m), out, UCCI(back), err)
		}
	})
}
