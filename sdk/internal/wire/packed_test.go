package wire

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/banmen/banmen/sdk"
)

func samplePacked() ([]sdk.Cell, []sdk.LegalMove) {
	cells := []sdk.Cell{{}, {Kind: "P", Owner: 1}, {Kind: "+R", Owner: 3, Facing: -2, Promoted: true, Flipped: true},
		{Kind: "将", Owner: math.MaxInt32, Facing: math.MinInt32}}
	moves := []sdk.LegalMove{
		{Seat: 0, Kind: sdk.BoardMove, Move: "7g7f", Text: "７六歩(77)", Alt: "P-7f", From: 60, To: 51},
		{Seat: 1, Kind: sdk.DropMove, Move: "P*5e", Text: "５五歩打", From: -1, To: 40, Drop: "P"},
		{Seat: 2, Kind: sdk.Action, Move: "declare", Text: "", From: -1, To: -1, Promote: true, Key: "move.declare"},
	}
	return cells, moves
}

func TestPackedRoundTrip(t *testing.T) {
	cells, moves := samplePacked()
	for _, n := range []int{0, 1, len(cells)} {
		b, err := PackBoard(cells[:n])
		if err != nil {
			t.Fatal(err)
		}
		got, err := UnpackBoard(b)
		if err != nil || !reflect.DeepEqual(got, cells[:n]) {
			t.Errorf("board of %d: got %+v, %v", n, got, err)
		}
	}
	for _, n := range []int{0, 1, len(moves)} {
		b, err := PackLegal(moves[:n])
		if err != nil {
			t.Fatal(err)
		}
		got, err := UnpackLegal(b)
		if err != nil || !reflect.DeepEqual(got, moves[:n]) {
			t.Errorf("legal of %d: got %+v, %v", n, got, err)
		}
	}
}

// TestPackedRefusesEveryTruncation: no prefix of a packed string, and no
// string with a byte more, is read as a board or a list of moves.
func TestPackedRefusesEveryTruncation(t *testing.T) {
	cells, moves := samplePacked()
	board, _ := PackBoard(cells)
	legal, _ := PackLegal(moves)
	for i := range len(board) {
		if _, err := UnpackBoard(board[:i]); !errors.Is(err, ErrPacked) {
			t.Errorf("board cut at %d of %d: %v", i, len(board), err)
		}
	}
	for i := range len(legal) {
		if _, err := UnpackLegal(legal[:i]); !errors.Is(err, ErrPacked) {
			t.Errorf("legal cut at %d of %d: %v", i, len(legal), err)
		}
	}
	if _, err := UnpackBoard(append(board, 0)); !errors.Is(err, ErrPacked) {
		t.Errorf("a byte after the board: %v", err)
	}
	if _, err := UnpackLegal(append(legal, 0)); !errors.Is(err, ErrPacked) {
		t.Errorf("a byte after the moves: %v", err)
	}
}

func TestPackedRefusesBadInput(t *testing.T) {
	for name, b := range map[string][]byte{
		"huge count":         {0xff, 0xff, 0xff, 0xff, 0x0f},
		"varint overflow":    {1, 1, 'P', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0},
		"owner beyond int32": {1, 0, 0x80, 0x80, 0x80, 0x80, 0x20, 0, 0},
		"bad UTF-8":          {1, 1, 0xff, 0, 0, 0},
		"unknown flag":       {1, 0, 0, 0, 4},
	} {
		if _, err := UnpackBoard(b); !errors.Is(err, ErrPacked) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := PackBoard([]sdk.Cell{{Kind: "\xff"}}); err == nil {
		t.Error("a kind that is not UTF-8 must not pack (protobuf would refuse it too)")
	}
	if _, err := PackLegal([]sdk.LegalMove{{Text: "\xc3"}}); err == nil {
		t.Error("a text that is not UTF-8 must not pack")
	}
}

// TestToViewRefusesBothForms: a view with a packed and a plain board is a
// broken plugin, not something to merge.
func TestToViewRefusesBothForms(t *testing.T) {
	cells, _ := samplePacked()
	b, _ := PackBoard(cells)
	if _, err := ToView(&View{PackedBoard: b, Board: []*Cell{{}}}); !errors.Is(err, ErrPacked) {
		t.Errorf("both boards: %v", err)
	}
	if _, err := ToView(&View{PackedBoard: b[:1]}); !errors.Is(err, ErrPacked) {
		t.Errorf("a truncated board: %v", err)
	}
}

func FuzzUnpack(f *testing.F) {
	cells, moves := samplePacked()
	board, _ := PackBoard(cells)
	legal, _ := PackLegal(moves)
	f.Add(board)
	f.Add(legal)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		// Whatever unpacks packs again and unpacks to the same value.
		if c, err := UnpackBoard(b); err == nil {
			again, err := PackBoard(c)
			if err != nil {
				t.Fatalf("board %x unpacks to %+v, which does not pack: %v", b, c, err)
			}
			if c2, err := UnpackBoard(again); err != nil || !reflect.DeepEqual(c, c2) {
				t.Fatalf("board %x: %+v packs and unpacks to %+v (%v)", b, c, c2, err)
			}
		}
		m, err := UnpackLegal(b)
		if err == nil {
			again, err := PackLegal(m)
			if err != nil {
				t.Fatalf("moves %x unpack to %+v, which do not pack: %v", b, m, err)
			}
			if m2, err := UnpackLegal(again); err != nil || !reflect.DeepEqual(m, m2) {
				t.Fatalf("moves %x: %+v pack and unpack to %+v (%v)", b, m, m2, err)
			}
		}
	})
}
