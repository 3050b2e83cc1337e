package rules

import (
	"math/rand/v2"
	"testing"
)

func TestChinese(t *testing.T) {
	const blackToMove = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1"
	tests := []struct{ fen, ucci, want string }{
		{StartFEN, "h2e2", "炮二平五"},
		{StartFEN, "b0c2", "马八进七"},
		{StartFEN, "a0a1", "车九进一"},
		{StartFEN, "e3e4", "兵五进一"},
		{StartFEN, "f0e1", "仕四进五"},
		{StartFEN, "g0e2", "相三进五"},
		{StartFEN, "e0e1", "帅五进一"},
		{blackToMove, "h9g7", "马8进7"},
		{blackToMove, "b7e7", "炮2平5"},
		{blackToMove, "d9e8", "士4进5"},
		{blackToMove, "c6c5", "卒3进1"},
		{tandemRooks, "e6d6", "前车平六"},
		{tandemRooks, "e3e2", "后车退一"},
		{tandemBlack, "e3e2", "前车进1"},
		{tandemHorses, "e1f3", "后马进四"},
		{threePawns, "e7d7", "前兵平六"},
		{threePawns, "e6d6", "中兵平六"},
		{threePawns, "e5d5", "后兵平六"},
		{fourPawns, "e8d8", "一兵平六"},
		{fourPawns, "e5d5", "四兵平六"},
		{twoFiles, "c7b7", "前七平八"},
		{twoFiles, "c6b6", "中七平八"},
		{twoFiles, "g5h5", "后三平二"},
		{tandemGuards, "d2e1", "仕六退五"},
	}
	for _, tc := range tests {
		p := mustFEN(t, tc.fen)
		m, err := p.ParseLegalUCCI(tc.ucci)
		if err != nil {
			t.Errorf("%s in %s: %v", tc.ucci, tc.fen, err)
			continue
		}
		if got := p.Chinese(m); got != tc.want {
			t.Errorf("Chinese of %s in %s = %q, want %q", tc.ucci, tc.fen, got, tc.want)
		}
	}
}

// TestChineseUnique: every legal move has its own Chinese text, in the
// tandem positions and along seeded random games.
func TestChineseUnique(t *testing.T) {
	check := func(p *Position) {
		seen := map[string]Move{}
		for _, m := range p.LegalMoves() {
			w := p.Chinese(m)
			if prev, dup := seen[w]; dup {
				t.Errorf("%s: %s and %s are both %q", p.FEN(), UCCI(prev), UCCI(m), w)
			}
			seen[w] = m
		}
	}
	for _, fen := range []string{StartFEN, tandemRooks, tandemBlack, tandemHorses,
		threePawns, fourPawns, fivePawns, twoFiles, blackPawns, tandemGuards} {
		check(mustFEN(t, fen))
	}
	r := rand.New(rand.NewPCG(8, 8))
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
