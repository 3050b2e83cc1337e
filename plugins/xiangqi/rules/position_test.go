package rules

import "testing"

func TestSquares(t *testing.T) {
	for c := 0; c < 90; c++ {
		s := squareOfCell(c)
		if !onBoard[s] || s.cell() != c {
			t.Fatalf("cell %d -> square %d -> cell %d", c, s, s.cell())
		}
	}
	for _, tc := range []struct {
		name string
		cell int
	}{{"a9", 0}, {"i9", 8}, {"e9", 4}, {"a0", 81}, {"e0", 85}, {"i0", 89}} {
		s, ok := parseSquare(tc.name)
		if !ok || s.cell() != tc.cell || squareName(s) != tc.name {
			t.Errorf("%s: cell %d, want %d", tc.name, s.cell(), tc.cell)
		}
	}
	n := 0
	for s := range onBoard {
		if onBoard[s] {
			n++
		}
	}
	if n != 90 {
		t.Errorf("%d points on the board", n)
	}
	// The padding must stop every jump: two files or ranks off any edge.
	for _, s := range []Square{sq(0, 0), sq(8, 9), sq(0, 9), sq(8, 0)} {
		for _, d := range horseJump {
			if t2 := s.add(d); onBoard[t2] && (abs(t2.File()-s.File()) > 2 || abs(t2.Rank()-s.Rank()) > 2) {
				t.Errorf("jump %d from %s wraps to %s", d, squareName(s), squareName(t2))
			}
		}
	}
}

func TestPieceEncoding(t *testing.T) {
	for _, c := range []Color{Red, Black} {
		for k := King; k <= Pawn; k++ {
			p := makePiece(c, k)
			if p.Color() != c || p.Kind() != k || p&colorBit(c) == 0 || p&colorBit(c^1) != 0 {
				t.Errorf("piece %v %v encodes as %#x", c, k, p)
			}
		}
	}
	if Border&colorBit(Red) == 0 || Border&colorBit(Black) == 0 || Border.Kind() != NoKind {
		t.Error("Border must look like an own piece to both sides")
	}
}

// TestMakeUnmake walks a few plies and checks that unmake restores
// everything, piece lists included.
func TestMakeUnmake(t *testing.T) {
	p := mustFEN(t, perftTable[1].fen)
	var walk func(depth int)
	walk = func(depth int) {
		if depth == 0 {
			return
		}
		for _, m := range p.LegalMoves() {
			before := *p
			u := p.make(m)
			walk(depth - 1)
			p.unmake(m, u)
			if !samePosition(p, &before) {
				t.Fatalf("make/unmake %s changed the position", UCCI(m))
			}
		}
	}
	walk(3)
}

// samePosition compares everything that matters (slot entries of empty
// squares are stale by design).
func samePosition(a, b *Position) bool {
	if a.board != b.board || a.list != b.list || a.n != b.n || a.king != b.king || a.side != b.side {
		return false
	}
	for i := range a.board {
		if a.board[i] != Empty && a.board[i] != Border && a.slot[i] != b.slot[i] {
			return false
		}
	}
	return true
}
