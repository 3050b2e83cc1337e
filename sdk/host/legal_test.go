package host_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
)

// PackedLegal moves the legal moves out of the View and changes nothing
// else, on both lanes; a refused move leaves the list as it was;
// EachLegalJSON sees every move of the list as it arrives, as json.Marshal
// writes it.
func TestPackedLegal(t *testing.T) {
	onBothLanes(t, func(ctx context.Context, c *host.Conn, grpcOnly bool, s sdk.State, v sdk.View) {
		const id = "tictactoe"
		for ply := 0; len(v.Legal) > 0; ply++ {
			m := v.Legal[len(v.Legal)/2]
			next, want, err := c.Play(ctx, host.PlayRequest{Variant: id, State: s, Seat: m.Seat, Move: m.Move})
			if err != nil {
				t.Fatal(err)
			}
			var list host.LegalList
			var seen []string
			st, got, err := c.Play(ctx, host.PlayRequest{Variant: id, State: s, Seat: m.Seat, Move: m.Move}, host.PackedLegal(&list), host.EachLegalJSON(func(seat sdk.Seat, js []byte) {
				var m sdk.LegalMove
				if json.Unmarshal(js, &m) != nil || m.Seat != seat {
					t.Errorf("EachLegalJSON: seat %d, JSON %s", seat, js)
				}
				seen = append(seen, string(js))
			}))
			if err != nil {
				t.Fatal(err)
			}
			checkPacked(t, grpcOnly, ply, "Play", list, got, want)
			var wantJSON []string
			for _, m := range want.Legal {
				js, _ := json.Marshal(m)
				wantJSON = append(wantJSON, string(js))
			}
			if !slices.Equal(seen, wantJSON) {
				t.Errorf("grpcOnly %v, ply %d: EachLegalJSON saw %q; want %q", grpcOnly, ply, seen, wantJSON)
			}
			if string(st) != string(next) {
				t.Errorf("grpcOnly %v, ply %d: state %q, want %q", grpcOnly, ply, st, next)
			}
			view, err := c.View(ctx, host.ViewRequest{Variant: id, State: next}, host.PackedLegal(&list))
			if err != nil {
				t.Fatal(err)
			}
			checkPacked(t, grpcOnly, ply, "View", list, view, want)
			if _, _, err := c.Play(ctx, host.PlayRequest{Variant: id, State: s, Seat: m.Seat, Move: "no such move"}, host.PackedLegal(&list)); err == nil {
				t.Fatalf("grpcOnly %v: an illegal move was played", grpcOnly)
			}
			checkPacked(t, grpcOnly, ply, "refused Play", list, view, want)
			s, v = next, want
		}
	})
}

func checkPacked(t *testing.T, grpcOnly bool, ply int, call string, list host.LegalList, got, want sdk.View) {
	t.Helper()
	var moves []sdk.LegalMove
	list.Each(func(m *sdk.LegalMove) bool { moves = append(moves, *m); return true })
	if list.Len() != len(want.Legal) || len(moves) != len(want.Legal) || (len(moves) > 0 && !reflect.DeepEqual(moves, want.Legal)) {
		t.Errorf("grpcOnly %v, ply %d: %s's list has %d: %+v; want %+v", grpcOnly, ply, call, list.Len(), moves, want.Legal)
	}
	if got.Legal != nil {
		t.Errorf("grpcOnly %v, ply %d: %s's View keeps %d legal moves", grpcOnly, ply, call, len(got.Legal))
	}
	want.Legal = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("grpcOnly %v, ply %d: %s's View\n%+v\nwant\n%+v", grpcOnly, ply, call, got, want)
	}
	if n := 0; list.Len() > 1 {
		list.Each(func(*sdk.LegalMove) bool { n++; return false })
		if n != 1 {
			t.Errorf("Each went on after false: %d calls", n)
		}
	}
}

// TestPackedBoard: PackedBoard leaves the View's Board nil and gives the
// board packed, on both lanes, alone or with PackedLegal; Changes between
// two plies' boards is the cells that differ, and a refused Play writes
// nothing.
func TestPackedBoard(t *testing.T) {
	onBothLanes(t, func(ctx context.Context, c *host.Conn, grpcOnly bool, s sdk.State, v sdk.View) {
		const id = "tictactoe"
		var prev host.Board
		if _, err := c.View(ctx, host.ViewRequest{Variant: id, State: s}, host.PackedBoard(&prev)); err != nil {
			t.Fatal(err)
		}
		checkBoard(t, grpcOnly, -1, prev, v.Board)
		for ply := 0; len(v.Legal) > 0; ply++ {
			m := v.Legal[0]
			next, want, err := c.Play(ctx, host.PlayRequest{Variant: id, State: s, Seat: m.Seat, Move: m.Move})
			if err != nil {
				t.Fatal(err)
			}
			var board host.Board
			st, got, err := c.Play(ctx, host.PlayRequest{Variant: id, State: s, Seat: m.Seat, Move: m.Move}, host.PackedBoard(&board))
			if err != nil {
				t.Fatal(err)
			}
			checkBoard(t, grpcOnly, ply, board, want.Board)
			if string(st) != string(next) || got.Board != nil || !reflect.DeepEqual(got.Legal, want.Legal) {
				t.Errorf("grpcOnly %v, ply %d: state %q, board %v, legal %v; want %q, nil, %v", grpcOnly, ply, st, got.Board, got.Legal, next, want.Legal)
			}
			var both host.Board
			var list host.LegalList
			if _, got, err = c.Play(ctx, host.PlayRequest{Variant: id, State: s, Seat: m.Seat, Move: m.Move}, host.PackedBoard(&both), host.PackedLegal(&list)); err != nil {
				t.Fatal(err)
			}
			checkBoard(t, grpcOnly, ply, both, want.Board)
			var moves []sdk.LegalMove
			list.Each(func(m *sdk.LegalMove) bool { moves = append(moves, *m); return true })
			if len(moves) != len(want.Legal) || len(moves) > 0 && !reflect.DeepEqual(moves, want.Legal) {
				t.Errorf("grpcOnly %v, ply %d: legal moves with both packed %+v, want %+v", grpcOnly, ply, moves, want.Legal)
			}
			want.Legal, want.Board = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("grpcOnly %v, ply %d: View with both packed\n%+v\nwant\n%+v", grpcOnly, ply, got, want)
			}
			var changed []int
			if !board.Changes(prev, func(at int, c *sdk.Cell) { changed = append(changed, at) }) {
				t.Fatalf("grpcOnly %v, ply %d: Changes false", grpcOnly, ply)
			}
			if len(changed) != 1 || changed[0] != m.To {
				t.Errorf("grpcOnly %v, ply %d: %s changed cells %v, want [%d]", grpcOnly, ply, m.Move, changed, m.To)
			}
			if _, _, err := c.Play(ctx, host.PlayRequest{Variant: id, State: s, Seat: m.Seat, Move: "no such move"}, host.PackedBoard(&board)); err == nil {
				t.Fatalf("grpcOnly %v: an illegal move was played", grpcOnly)
			}
			checkBoard(t, grpcOnly, ply, board, boardOf(ctx, t, c, next))
			s, prev = next, board
			if v, err = c.View(ctx, host.ViewRequest{Variant: id, State: s}); err != nil {
				t.Fatal(err)
			}
		}
		if (host.Board{}).Changes(prev, func(int, *sdk.Cell) { t.Error("called for boards of two sizes") }) {
			t.Error("Changes of two sizes: true")
		}
	})
}

// boardOf is the board of tictactoe's state s, unpacked.
func boardOf(ctx context.Context, t *testing.T, c *host.Conn, s sdk.State) []sdk.Cell {
	t.Helper()
	v, err := c.View(ctx, host.ViewRequest{Variant: "tictactoe", State: s})
	if err != nil {
		t.Fatal(err)
	}
	return v.Board
}

func checkBoard(t *testing.T, grpcOnly bool, ply int, b host.Board, want []sdk.Cell) {
	t.Helper()
	var cells []sdk.Cell
	b.Each(func(at int, c *sdk.Cell) bool {
		if at != len(cells) {
			t.Errorf("cell %d given as %d", len(cells), at)
		}
		cells = append(cells, *c)
		return true
	})
	if b.Len() != len(want) || !reflect.DeepEqual(cells, want) {
		t.Errorf("grpcOnly %v, ply %d: packed board of %d: %+v; want %+v", grpcOnly, ply, b.Len(), cells, want)
	}
}
