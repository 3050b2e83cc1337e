package wire

import (
	"testing"
	"unicode/utf8"

	"github.com/banmen/banmen/sdk"
)

// shogiLikeLegal is 110 legal moves with a shogi middle game's texts.
func shogiLikeLegal() []sdk.LegalMove {
	var out []sdk.LegalMove
	for i := range 110 {
		lm := sdk.LegalMove{Seat: 0, Kind: sdk.BoardMove, Move: "7g7f", Text: "▲７六歩", Alt: "P-7f", From: i % 81, To: (i * 7) % 81}
		switch i % 5 {
		case 1:
			lm.Move, lm.Text, lm.Alt, lm.Promote = "8h2b+", "▲２二角成", "Bx2b+", true
		case 2:
			lm.Kind, lm.Move, lm.Text, lm.Alt, lm.From, lm.Drop = sdk.DropMove, "S*5e", "▲５五銀打", "S*5e", -1, "S"
		case 3:
			lm.Move, lm.Text, lm.Alt = "4i5h", "▲５八金右", "G4i-5h"
		}
		out = append(out, lm)
	}
	return out
}

// BenchmarkPacked packs a legal list of 110 moves and a board of 81
// cells into reused buffers, as a plugin's server packs a shogi View.
func BenchmarkPacked(b *testing.B) {
	moves := shogiLikeLegal()
	cells := make([]sdk.Cell, 81)
	for i := range cells {
		cells[i] = sdk.Cell{Owner: sdk.NoSeat}
		if i%2 == 0 {
			cells[i] = sdk.Cell{Kind: "P", Owner: sdk.Seat(i % 3 % 2), Facing: 2 * (i % 3 % 2)}
		}
	}
	b.ReportAllocs()
	var board, legal []byte
	for b.Loop() {
		var err error
		if board, err = AppendBoard(board[:0], cells); err != nil {
			b.Fatal(err)
		}
		if legal, err = AppendLegal(legal[:0], moves); err != nil {
			b.Fatal(err)
		}
	}
}

// TestValidText: validText agrees with utf8.ValidString on every text of
// up to three bytes around the sequences it passes by itself, and on
// longer mixes of them.
func TestValidText(t *testing.T) {
	tails := []string{"", "a", "\x80", "\xbf", "\xc0", "\xe3", "\xe3\x81", "\xed\xa0\x80", "\xf0\x9f\x98\x80", "▲", "７六歩"}
	for a := 0; a < 256; a++ {
		for _, b := range []byte{0x00, 0x41, 0x7f, 0x80, 0x9f, 0xa0, 0xbf, 0xc0, 0xff} {
			for _, c := range []byte{0x00, 0x7f, 0x80, 0xbf, 0xc0} {
				for _, tail := range tails {
					s := string([]byte{byte(a), b, c}) + tail
					for _, x := range []string{s, s[:1], s[:2], "▲" + s, s + "▲"} {
						if validText(x) != utf8.ValidString(x) {
							t.Errorf("validText(%q) = %v", x, validText(x))
						}
					}
				}
			}
		}
	}
}
