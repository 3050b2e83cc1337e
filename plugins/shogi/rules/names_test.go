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
