package rules

import (
	"testing"
)

func TestMoveNames(t *testing.T) {
	tests := []struct {
		sfen     string
		moves    []string // played first
		move     string
		japanese string
		western  string
	}{
		{StartSFEN, nil, "7g7f", "▲７六歩", "P-7f"},
		{StartSFEN, []string{"7g7f"}, "3c3d", "△３四歩", "P-3d"},
		{StartSFEN, []string{"7g7f", "3c3d"}, "8h2b+", "▲２二角成", "Bx2b+"},
		{StartSFEN, []string{"7g7f", "3c3d"}, "8h2b", "▲２二角不成", "Bx2b="},
		{StartSFEN, []string{"7g7f", "3c3d", "8h2b+"}, "3a2b", "△同　銀", "Sx2b"},
		{StartSFEN, []string{"7g7f", "3c3d", "8h2b+", "3a2b"}, "B*4e", "▲４五角打", "B*4e"},
		{StartSFEN, nil, "6i5h", "▲５八金左", "G6i-5h"},
		{StartSFEN, nil, "4i5h", "▲５八金右", "G4i-5h"},
		{StartSFEN, nil, "6i7h", "▲７八金", "G-7h"},
		{"4k4/9/9/9/9/9/9/9/3GGK3 b - 1", nil, "5i5h", "▲５八金直", "G5i-5h"},
		{"4k4/9/9/9/9/9/9/9/3GGK3 b - 1", nil, "6i5h", "▲５八金左", "G6i-5h"},
		{"4k4/9/9/9/9/9/9/3G5/4GK3 b - 1", nil, "6h5h", "▲５八金寄", "G6h-5h"},
		{"4k4/9/9/9/9/9/9/3G5/4GK3 b - 1", nil, "5i5h", "▲５八金上", "G5i-5h"},
		{"4k4/9/9/9/5+P3/9/9/9/4K4 b - 1", nil, "4e4d", "▲４四と", "+P-4d"},
		{"4k4/9/4+P4/9/9/9/9/9/4K4 b - 1", nil, "5c4b", "▲４二と", "+P-4b"},
		{"4k4/9/9/9/9/9/9/9/4K4 b S 1", nil, "S*5e", "▲５五銀打", "S*5e"},
	}
	for _, tc := range tests {
		g := gameFrom(t, tc.sfen, tc.moves...)
		found := false
		for _, m := range g.view().Legal {
			if string(m.Move) == tc.move {
				found = true
				if m.Text != tc.japanese || m.Alt != tc.western {
					t.Errorf("%s after %v: %q %q, want %q %q", tc.move, tc.moves, m.Text, m.Alt, tc.japanese, tc.western)
				}
			}
		}
		if !found {
			t.Errorf("%s is not listed after %v", tc.move, tc.moves)
		}
	}
}

// TestRivalsIndexIsTheScan checks the index rivals consults against a scan
// of the whole list, for every legal move of every position of a game and
// of positions crowded with like pieces.
func TestRivalsIndexIsTheScan(t *testing.T) {
	scan := func(p *Position, legal []Move, m Move) []int {
		var out []int
		if m.isDrop() {
			return nil
		}
		for _, x := range legal {
			if !x.isDrop() && x.to() == m.to() && x.from() != m.from() && p.b[x.from()] == p.b[m.from()] && !containsInt(out, x.from()) {
				out = append(out, x.from())
			}
		}
		return out
	}
	mustSFEN := func(t *testing.T, sfen string) Position {
		p, err := ParseSFEN(sfen)
		if err != nil {
			t.Fatalf("ParseSFEN(%q): %v", sfen, err)
		}
		return p
	}
	check := func(where string, p *Position) {
		legal := p.legalMoves(nil)
		n := namer{p: p, legal: legal}
		for _, m := range legal {
			got, want := n.rivals(m), scan(p, legal, m)
			if len(got) != len(want) {
				t.Fatalf("%s, %s: rivals %v, the scan %v", where, m.USI(), got, want)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s, %s: rivals %v, the scan %v", where, m.USI(), got, want)
				}
			}
		}
	}
	for _, sfen := range []string{
		"4k4/9/9/9/3GGG3/3G1S3/3SSS3/9/4K4 b 2r2b18p4n4l 1",
		"4k4/9/9/3+P+P+P3/3+P1+P3/3+P+P+P3/9/9/4K4 b 2r2b4g4s4n4l10p 1",
	} {
		p := mustSFEN(t, sfen)
		check(sfen, &p)
	}
	p := mustSFEN(t, StartSFEN)
	for ply := 0; ply < 150; ply++ {
		check("ply "+p.SFEN(), &p)
		legal := p.legalMoves(nil)
		if len(legal) == 0 {
			break
		}
		p.do(legal[(ply*11)%len(legal)])
	}
}
