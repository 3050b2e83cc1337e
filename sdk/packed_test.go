package sdk

import (
	"testing"
	"unicode/utf8"
)

// shogiLikeLegal is 110 legal moves with a shogi middle game's texts.
func shogiLikeLegal() []LegalMove {
	var out []LegalMove
	for i := range 110 {
		lm := LegalMove{Seat: 0, Kind: BoardMove, Move: "7g7f", Text: "▲７六歩", Alt: "P-7f", From: i % 81, To: (i * 7) % 81}
		switch i % 5 {
		case 1:
			lm.Move, lm.Text, lm.Alt, lm.Promote = "8h2b+", "▲２二角成", "Bx2b+", true
		case 2:
			lm.Kind, lm.Move, lm.Text, lm.Alt, lm.From, lm.Drop = DropMove, "S*5e", "▲５五銀打", "S*5e", -1, "S"
		case 3:
			lm.Move, lm.Text, lm.Alt = "4i5h", "▲５八金右", "G4i-5h"
		}
		out = append(out, lm)
	}
	return out
}

// BenchmarkPackedLegal is a Packed legal list of 110 moves and a board of
// 81 cells, as a shogi variant packs them.
func BenchmarkPacked(b *testing.B) {
	moves := shogiLikeLegal()
	cells := make([]Cell, 81)
	for i := range cells {
		cells[i] = Cell{Owner: NoSeat}
		if i%2 == 0 {
			cells[i] = Cell{Kind: "P", Owner: Seat(i % 3 % 2), Facing: 2 * (i % 3 % 2)}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		var p Packed
		p.BeginBoard(len(cells), 81*5+2)
		for i := range cells {
			p.AddCell(&cells[i])
		}
		p.BeginLegal(len(moves), 56*len(moves))
		for i := range moves {
			p.AddLegal(&moves[i])
		}
		if _, _, err := p.Lists(); err != nil {
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

// TestPackedCell: a board of cells packed once and added is the board of
// the cells added one by one.
func TestPackedCell(t *testing.T) {
	cells := []Cell{{Owner: NoSeat}, {Kind: "P", Owner: 1, Facing: 2, Promoted: true}, {Kind: "将", Owner: 3, Facing: -2, Flipped: true}}
	var a, b Packed
	a.BeginBoard(len(cells)*2, 0)
	b.BeginBoard(len(cells)*2, 0)
	for range 2 {
		for _, c := range cells {
			a.AddCell(&c)
			pc, err := PackCell(c)
			if err != nil {
				t.Fatal(err)
			}
			b.AddPackedCell(pc)
		}
	}
	ab, _, err := a.Lists()
	bb, _, err2 := b.Lists()
	if err != nil || err2 != nil || string(ab) != string(bb) {
		t.Fatalf("%x (%v), want %x (%v)", bb, err2, ab, err)
	}
	if _, err := PackCell(Cell{Kind: "\xff"}); err == nil {
		t.Error("a kind that is not UTF-8 packed")
	}
	var c Packed
	c.BeginBoard(1, 0)
	c.AddPackedCell(PackedCell{})
	if _, _, err := c.Lists(); err == nil {
		t.Error("a zero PackedCell added")
	}
	pc, _ := PackCell(cells[0])
	c = Packed{}
	c.BeginBoard(1, 0)
	c.AddPackedCell(pc)
	c.AddPackedCell(pc)
	if _, _, err := c.Lists(); err == nil {
		t.Error("a cell more than begun")
	}
}

// TestPackedLegal: a legal list of moves packed once and added is the list
// of the moves added one by one.
func TestPackedLegal(t *testing.T) {
	moves := shogiLikeLegal()[:5]
	var a, b Packed
	a.BeginLegal(len(moves)*2, 0)
	b.BeginLegal(len(moves)*2, 0)
	for range 2 {
		for _, m := range moves {
			a.AddLegal(&m)
			pm, err := PackLegal(m)
			if err != nil {
				t.Fatal(err)
			}
			b.AddPackedLegal(pm)
		}
	}
	_, al, err := a.Lists()
	_, bl, err2 := b.Lists()
	if err != nil || err2 != nil || string(al) != string(bl) {
		t.Fatalf("%x (%v), want %x (%v)", bl, err2, al, err)
	}
	if _, err := PackLegal(LegalMove{Text: "\xff"}); err == nil {
		t.Error("a text that is not UTF-8 packed")
	}
	var c Packed
	c.BeginLegal(1, 0)
	c.AddPackedLegal(PackedLegal{})
	if _, _, err := c.Lists(); err == nil {
		t.Error("a zero PackedLegal added")
	}
	pm, _ := PackLegal(moves[0])
	c = Packed{}
	c.BeginLegal(1, 0)
	c.AddPackedLegal(pm)
	c.AddPackedLegal(pm)
	if _, _, err := c.Lists(); err == nil {
		t.Error("a move more than begun")
	}
}
