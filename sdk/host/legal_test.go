package host_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
)

// PackedLegal moves the legal moves out of the View and changes nothing
// else, on both lanes; a refused move leaves the list as it was.
func TestPackedLegal(t *testing.T) {
	onBothLanes(t, func(ctx context.Context, c *host.Conn, grpcOnly bool, s sdk.State, v sdk.View) {
		const id = "tictactoe"
		for ply := 0; len(v.Legal) > 0; ply++ {
			m := v.Legal[len(v.Legal)/2]
			next, want, err := c.Play(ctx, id, s, m.Seat, m.Move)
			if err != nil {
				t.Fatal(err)
			}
			var list host.LegalList
			st, got, err := c.Play(ctx, id, s, m.Seat, m.Move, host.PackedLegal(&list))
			if err != nil {
				t.Fatal(err)
			}
			checkPacked(t, grpcOnly, ply, "Play", list, got, want)
			if string(st) != string(next) {
				t.Errorf("grpcOnly %v, ply %d: state %q, want %q", grpcOnly, ply, st, next)
			}
			view, err := c.View(ctx, id, next, host.PackedLegal(&list))
			if err != nil {
				t.Fatal(err)
			}
			checkPacked(t, grpcOnly, ply, "View", list, view, want)
			if _, _, err := c.Play(ctx, id, s, m.Seat, "no such move", host.PackedLegal(&list)); err == nil {
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
