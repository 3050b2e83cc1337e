package rules

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSearchAPIRandomWalks plays seeded random walks through MakeMove and
// checks at every node what search relies on: the incremental hash equals
// the hash from scratch, GenerateCaptures is exactly the captures of
// GenerateMoves, and UnmakeMove restores the position bit for bit.
func TestSearchAPIRandomWalks(t *testing.T) {
	starts := []string{StartFEN, "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1"}
	rng := rand.New(rand.NewPCG(7, 11))
	for _, fen := range starts {
		for walk := 0; walk < 40; walk++ {
			p, err := ParseFEN(fen)
			if err != nil {
				t.Fatal(err)
			}
			for ply := 0; ply < 120; ply++ {
				if h := p.computeHash(); p.Hash() != h {
					t.Fatalf("%s: hash %x, from scratch %x", p.FEN(), p.Hash(), h)
				}
				var all, caps MoveList
				p.GenerateMoves(&all)
				p.GenerateCaptures(&caps)
				var want []Move
				for _, m := range all.Moves() {
					if p.PieceAt(m.To()) != Empty {
						want = append(want, m)
					}
				}
				if !slices.Equal(caps.Moves(), want) {
					t.Fatalf("%s: captures %v, want %v", p.FEN(), caps.Moves(), want)
				}
				legal := p.LegalMoves()
				if len(legal) == 0 {
					break
				}
				m := legal[rng.IntN(len(legal))]
				before := *p
				u := p.MakeMove(m)
				if rng.IntN(4) == 0 {
					p.UnmakeMove(m, u)
					// slot of an empty square is stale by design, so compare
					// what is meaningful.
					if p.board != before.board || p.list != before.list || p.hash != before.hash ||
						p.side != before.side || p.king != before.king {
						t.Fatalf("%s: unmake of %s did not restore", before.FEN(), UCCI(m))
					}
					p.MakeMove(m)
				}
			}
		}
	}
}

func TestHistory(t *testing.T) {
	g, err := importFENUCCI("startpos moves b0c2 b9c7 c2b0 c7b9 h2e2 h9g7")
	if err != nil {
		t.Fatal(err)
	}
	hashes, checks := g.History()
	if len(hashes) != 7 || len(checks) != 6 || hashes[0] != hashes[4] || hashes[6] != g.Position().Hash() {
		t.Errorf("History: %d hashes, %d checks", len(hashes), len(checks))
	}
	// A capture cuts the history: nothing before it can recur.
	g, _ = importFENUCCI("startpos moves h2e2 h9g7 e2e6")
	if hashes, _ := g.History(); len(hashes) != 1 {
		t.Errorf("after a capture: %d hashes, want 1", len(hashes))
	}
}
