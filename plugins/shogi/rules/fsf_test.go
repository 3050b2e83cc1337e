package rules

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/banmen/banmen/sdk/extengine"
	"github.com/banmen/banmen/sdk/extengine/fsftest"
)

// TestAgainstFairyStockfish compares perft with Fairy-Stockfish's on random
// positions reached from the start and from the "matsuri" position, so that
// rare shapes (distant pins, double checks, drops in check) are covered.
// Fairy-Stockfish counts pawn-drop mates at the last ply as moves, so our
// count plus those must equal its count. It runs without -short; it skips
// when the engine is not installed (fails with BANMEN_REQUIRE_FSF=1, as in
// .ci/run) and fails when the engine is there but does not work.
func TestAgainstFairyStockfish(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs without -short")
	}
	fsf := extengine.New(extengine.Config{Command: fsftest.Path(t), Protocol: extengine.USI})
	defer fsf.Close()
	r := rand.New(rand.NewPCG(1, 2))
	failures := 0
	for i := 0; i < 120; i++ {
		start := StartSFEN
		if i%3 == 1 {
			start = perftCases[5].sfen // matsuri
		}
		p := randomPosition(t, r, start, r.IntN(120))
		depth := 2 + i%2
		ours, uchi := perftUchi(&p, depth)
		theirs, _, err := fsf.Perft(context.Background(), "sfen "+p.SFEN(), depth)
		if err != nil {
			t.Fatalf("fairy-stockfish perft of %s: %v", p.SFEN(), err)
		}
		if ours+uchi != theirs {
			t.Errorf("%s depth %d: ours %d + %d pawn-drop mates, fairy-stockfish %d; divide:\n%s",
				p.SFEN(), depth, ours, uchi, theirs, divideText(&p, depth))
			if failures++; failures > 3 {
				return
			}
		}
	}
}

// randomPosition plays random legal moves, preferring captures so that
// hands fill up.
func randomPosition(t *testing.T, r *rand.Rand, sfen string, plies int) Position {
	p, err := ParseSFEN(sfen)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < plies; j++ {
		ms := p.legalMoves(nil)
		if len(ms) == 0 {
			break
		}
		p.do(randomMove(r, &p, ms))
	}
	return p
}

// randomMove picks one of the legal moves ms in p, a capture when one of
// three more draws finds one.
func randomMove(r *rand.Rand, p *Position, ms []Move) Move {
	m := ms[r.IntN(len(ms))]
	for k := 0; k < 3; k++ {
		if x := ms[r.IntN(len(ms))]; !x.isDrop() && p.b[x.to()] != 0 {
			return x
		}
	}
	return m
}

// perftUchi is perft that also counts the pawn-drop mates left out at the
// last ply.
func perftUchi(p *Position, depth int) (nodes, uchi uint64) {
	if depth == 1 {
		return uint64(p.countLegal()), uchiAtLeaf(p)
	}
	for _, m := range p.legalMoves(nil) {
		c := p.do(m)
		n, u := perftUchi(p, depth-1)
		nodes, uchi = nodes+n, uchi+u
		p.undo(m, c)
	}
	return nodes, uchi
}

// uchiAtLeaf is 1 when the side to move has a pawn drop that would be legal
// but for giving mate.
func uchiAtLeaf(p *Position) uint64 {
	c := p.side
	ek := p.kingSq[c^1]
	if p.hand[c][pawn] == 0 || ek == 0 {
		return 0
	}
	ds := ek - forward[c]
	if p.b[ds] != 0 {
		return 0
	}
	var g genCtx
	p.genBoard(nil, &g)
	if g.pawnFiles&(1<<colOf[ds]) != 0 || g.checkers >= 2 || (g.checkers == 1 && !g.block[ds]) {
		return 0
	}
	if p.pawnDropMates(ds) {
		return 1
	}
	return 0
}
