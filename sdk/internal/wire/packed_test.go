package wire

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"sort"
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
		// CheckBoard accepts what UnpackBoard does, EachCell reads the
		// same cells, and BoardChanges against the sample board finds
		// the cells that differ.
		c, err := UnpackBoard(b)
		nc, cerr := CheckBoard(string(b))
		if (err == nil) != (cerr == nil) {
			t.Fatalf("board %x: UnpackBoard %v, CheckBoard %v", b, err, cerr)
		}
		if err == nil {
			var each []sdk.Cell
			EachCell(string(b), func(at int, c *sdk.Cell) bool {
				if at != len(each) {
					t.Fatalf("board %x: cell %d given as %d", b, len(each), at)
				}
				each = append(each, *c)
				return true
			})
			if nc != len(c) || len(each) != nc || (nc > 0 && !reflect.DeepEqual(each, c)) {
				t.Fatalf("board %x: CheckBoard %d, EachCell %+v; UnpackBoard %+v", b, nc, each, c)
			}
			checkBoardChanges(t, string(board), string(b))
			checkBoardChanges(t, string(b), string(board))
		}
		// CheckLegal and CheckLegalJSON accept what UnpackLegal does,
		// EachLegal reads the same moves, and CheckLegalJSON writes them
		// as json.Marshal does.
		m, err := UnpackLegal(b)
		n, cerr := CheckLegal(string(b))
		if (err == nil) != (cerr == nil) {
			t.Fatalf("moves %x: UnpackLegal %v, CheckLegal %v", b, err, cerr)
		}
		var js []string
		nj, jerr := CheckLegalJSON(string(b), func(_ sdk.Seat, j []byte) { js = append(js, string(j)) })
		if (err == nil) != (jerr == nil) {
			t.Fatalf("moves %x: UnpackLegal %v, CheckLegalJSON %v", b, err, jerr)
		}
		if want := marshalEach(m); err == nil && (nj != len(m) || !slices.Equal(js, want)) {
			t.Fatalf("moves %x: CheckLegalJSON %d %q; json.Marshal %q", b, nj, js, want)
		}
		if err == nil {
			var each []sdk.LegalMove
			EachLegal(string(b), func(l *sdk.LegalMove) bool { each = append(each, *l); return true })
			if n != len(m) || len(each) != n || (n > 0 && !reflect.DeepEqual(each, m)) {
				t.Fatalf("moves %x: CheckLegal %d, EachLegal %+v; UnpackLegal %+v", b, n, each, m)
			}
		}
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

// checkBoardChanges: BoardChanges gives the cells of next that differ
// from prev's, each once and in order, or is false when the sizes differ.
func checkBoardChanges(t *testing.T, prev, next string) {
	t.Helper()
	p, _ := UnpackBoard([]byte(prev))
	q, _ := UnpackBoard([]byte(next))
	var got []int
	ok := BoardChanges(prev, next, func(at int, c *sdk.Cell) {
		if at < 0 || at >= len(q) || *c != q[at] {
			t.Fatalf("BoardChanges gave cell %d as %+v; next %+v", at, *c, q)
		}
		got = append(got, at)
	})
	if ok != (len(p) == len(q)) {
		t.Fatalf("BoardChanges ok=%v for %d and %d cells", ok, len(p), len(q))
	}
	if !ok {
		if got != nil {
			t.Fatalf("BoardChanges false but gave cells %v", got)
		}
		return
	}
	var want []int
	for i := range q {
		if p[i] != q[i] {
			want = append(want, i)
		}
	}
	// A cell packed otherwise but equal may count as changed (a longer
	// varint): want must be among got, and got beyond it only such cells.
	j := 0
	for _, at := range got {
		if j < len(want) && want[j] == at {
			j++
		} else if p[at] != q[at] {
			t.Fatalf("BoardChanges %v, want %v", got, want)
		}
	}
	if j != len(want) || !sort.IntsAreSorted(got) {
		t.Fatalf("BoardChanges %v, want %v", got, want)
	}
}

func TestBoardChanges(t *testing.T) {
	cells, _ := samplePacked()
	before, _ := PackBoard(cells)
	after := slices.Clone(cells)
	after[0] = sdk.Cell{Kind: "G", Owner: 2}
	after[len(after)-1] = sdk.Cell{Kind: "king", Owner: 1, Promoted: true}
	moved, _ := PackBoard(after)
	var got []int
	if !BoardChanges(string(before), string(moved), func(at int, c *sdk.Cell) {
		if *c != after[at] {
			t.Errorf("cell %d: %+v, want %+v", at, *c, after[at])
		}
		got = append(got, at)
	}) || !slices.Equal(got, []int{0, len(after) - 1}) {
		t.Errorf("changed cells %v, want [0 %d]", got, len(after)-1)
	}
	if !BoardChanges(string(before), string(before), func(at int, c *sdk.Cell) { t.Errorf("unchanged board: cell %d", at) }) {
		t.Error("same board: false")
	}
	shorter, _ := PackBoard(cells[1:])
	if BoardChanges(string(before), string(shorter), func(int, *sdk.Cell) { t.Error("called for boards of two sizes") }) {
		t.Error("boards of two sizes: true")
	}
	checkBoardChanges(t, string(before), string(moved))
	// A count packed longer than it need be (4 as two bytes) moves next's
	// cells by a byte: they are still read where they are.
	longer := "\x84\x00" + string(moved[1:])
	got = nil
	if !BoardChanges(string(before), longer, func(at int, c *sdk.Cell) {
		if *c != after[at] {
			t.Errorf("count packed longer: cell %d: %+v, want %+v", at, *c, after[at])
		}
		got = append(got, at)
	}) || !slices.Equal(got, []int{0, len(after) - 1}) {
		t.Errorf("count packed longer: changed cells %v, want [0 %d]", got, len(after)-1)
	}
}
