package wire

import (
	"testing"

	"github.com/banmen/banmen/sdk"
	"google.golang.org/protobuf/proto"
)

// shogiLikeView is a View the size of a shogi middle game's: 81 cells, 40
// of them pieces, and 110 legal moves with Japanese texts, one History
// entry (the host asks only for the new ones).
func shogiLikeView() sdk.View {
	v := sdk.View{Ply: 80, Status: sdk.Playing, Position: "ln1g1g1nl/1r1s1k1s1/p1pppp1pp/1p4p2/9/2P4P1/PP1PPPP1P/1SKG1S1R1/LN1G3NL b Bb 81",
		ToMove: []sdk.Seat{0}, Board: make([]sdk.Cell, 81),
		Hands:    [][]sdk.HandPiece{{{Kind: "B", Count: 1}, {Kind: "P", Count: 2}}, {{Kind: "B", Count: 1}}},
		History:  []sdk.PlayedMove{{Seat: 1, Move: "3c3d", Text: "△３四歩", Alt: "P-3d"}},
		LastMove: &sdk.LegalMove{Seat: 1, Kind: sdk.BoardMove, Move: "3c3d", Text: "△３四歩", Alt: "P-3d", From: 24, To: 33}}
	kinds := []string{"P", "L", "N", "S", "G", "B", "R", "K"}
	for i := range v.Board {
		if i%2 == 0 && i < 80 {
			v.Board[i] = sdk.Cell{Kind: kinds[i%len(kinds)], Owner: sdk.Seat(i % 3 % 2), Facing: 2 * (i % 3 % 2), Promoted: i%7 == 0}
		} else {
			v.Board[i] = sdk.Cell{Owner: sdk.NoSeat}
		}
	}
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
		v.Legal = append(v.Legal, lm)
	}
	return v
}

// BenchmarkPackView is the plugin's side of a Play answer once the rules
// made it: the View to wire form, packed, and the response marshalled.
func BenchmarkPackView(b *testing.B) {
	v := shogiLikeView()
	st := make(sdk.State, 1000)
	b.ReportAllocs()
	for b.Loop() {
		w, err := FromViewPacked(&v)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := proto.Marshal(&GameResponse{State: st, View: w}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPackLegal is PackLegal alone, on the same list.
func BenchmarkPackLegal(b *testing.B) {
	v := shogiLikeView()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := PackLegal(v.Legal); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnpackView is the host's side of a Play answer: the response
// unmarshalled and its View converted, packed board and moves unpacked.
func BenchmarkUnpackView(b *testing.B) {
	msg := shogiLikeAnswer(b)
	b.ReportAllocs()
	for b.Loop() {
		var r GameResponse
		if err := proto.Unmarshal(msg, &r); err != nil {
			b.Fatal(err)
		}
		if _, err := ToView(r.View); err != nil {
			b.Fatal(err)
		}
	}
}

// shogiLikeAnswer is a Play's answer with shogiLikeView, packed, and a
// state of 1000 bytes.
func shogiLikeAnswer(b *testing.B) []byte {
	v := shogiLikeView()
	w, err := FromViewPacked(&v)
	if err != nil {
		b.Fatal(err)
	}
	msg, err := proto.Marshal(&GameResponse{State: make(sdk.State, 1000), View: w})
	if err != nil {
		b.Fatal(err)
	}
	return msg
}

// BenchmarkUnpackBoard is a board's share of what the host does with each
// answer: the packed board unpacked into the View's cells.
func BenchmarkUnpackBoard(b *testing.B) {
	v := shogiLikeView()
	p, _ := PackBoard(v.Board)
	s := string(p)
	dst := make([]sdk.Cell, 81)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := unpackBoard(dst, s); err != nil {
			b.Fatal(err)
		}
	}
}
