package rules

import (
	"math/rand/v2"
	"testing"
)

// TestDoUndo plays every legal move of many random positions and takes it
// back: the position must come back exactly, and the king cells stay right.
func TestDoUndo(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		p := randomPosition(t, r, StartSFEN, r.IntN(150))
		before := p
		for _, m := range p.legalMoves(nil) {
			cap := p.do(m)
			for c := 0; c < 2; c++ {
				if ks := p.kingSq[c]; ks != 0 && p.b[ks] != makePiece(c, king) {
					t.Fatalf("%s after %s: king cell of %d is wrong", before.SFEN(), m.USI(), c)
				}
			}
			if p.attacked(p.kingSq[p.side^1], p.side) {
				t.Fatalf("%s: %s leaves the king in check", before.SFEN(), m.USI())
			}
			p.undo(m, cap)
			if p != before {
				t.Fatalf("%s: do/undo of %s changed the position to %s", before.SFEN(), m.USI(), p.SFEN())
			}
		}
	}
}

func TestKey(t *testing.T) {
	a, _ := ParseSFEN(StartSFEN)
	b, _ := ParseSFEN("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 37")
	if a.key() != b.key() || !a.sameAs(&b) {
		t.Error("the move number must not be part of the repetition key")
	}
	for _, other := range []string{
		"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1", // side to move
		"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPP1/1B5R1/LNSGKGSNL b P 1", // hand
	} {
		c, err := ParseSFEN(other)
		if err != nil {
			t.Fatal(err)
		}
		if c.key() == a.key() || c.sameAs(&a) {
			t.Errorf("%s has the start position's key", other)
		}
	}
}

func TestAttacked(t *testing.T) {
	p, _ := ParseSFEN("4k4/9/9/9/4N4/9/9/9/L3K4 b - 1")
	for _, tc := range []struct {
		sq   string
		want bool
	}{
		{"4c", true}, {"6c", true}, {"5c", false}, {"5d", false}, // knight 5e
		{"9a", true}, {"9h", true}, {"8h", false}, // lance 9i
		{"4h", true}, {"5h", true}, {"5g", false}, // king 5i
	} {
		sq, _ := parseUSISquare(tc.sq)
		if got := p.attacked(sq, sente); got != tc.want {
			t.Errorf("attacked(%s) = %v, want %v", tc.sq, got, tc.want)
		}
	}
}

// TestHashIncremental plays random games and checks after every do and undo
// that the incremental hash is the one computed from scratch.
func TestHashIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for game := 0; game < 20; game++ {
		p, err := ParseSFEN(StartSFEN)
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < 150; ply++ {
			moves := p.legalMoves(nil)
			if len(moves) == 0 {
				break
			}
			for _, m := range moves {
				before := p.hash
				cap := p.do(m)
				q := p
				q.rehash()
				if q.hash != p.hash {
					t.Fatalf("after %s: hash %x, from scratch %x", m.USI(), p.hash, q.hash)
				}
				p.undo(m, cap)
				if p.hash != before {
					t.Fatalf("undo %s: hash %x, was %x", m.USI(), p.hash, before)
				}
			}
			p.do(moves[rng.IntN(len(moves))])
		}
	}
}

// TestGenerateCaptures compares the quiescence generator with the legal
// moves filtered: the captures and the pawn promotions, nothing else.
func TestGenerateCaptures(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 300; i++ {
		p := randomPosition(t, r, StartSFEN, r.IntN(160))
		got, inCheck := p.GenerateCaptures(nil)
		if inCheck != p.inCheck() {
			t.Fatalf("%s: inCheck %v", p.SFEN(), inCheck)
		}
		want := map[Move]bool{}
		for _, m := range p.legalMoves(nil) {
			if inCheck || !m.isDrop() && (p.b[m.to()] != 0 || m.promotes() && kindOf(p.b[m.from()]) == pawn) {
				want[m] = true
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d moves, want %d", p.SFEN(), len(got), len(want))
		}
		for _, m := range got {
			if !want[m] {
				t.Fatalf("%s: %s is not a legal capture", p.SFEN(), m.USI())
			}
		}
	}
}
