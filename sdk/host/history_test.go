package host_test

import (
	"context"
	"os/exec"
	"reflect"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
	"github.com/banmen/banmen/sdk/sdktest"
)

// onBothLanes calls f with a started tic-tac-toe game on a plugin process
// reached over the channel and over gRPC only.
func onBothLanes(t *testing.T, f func(ctx context.Context, c *host.Conn, grpcOnly bool, s sdk.State, v sdk.View)) {
	t.Helper()
	bin := sdktest.BuildPlugin(t, "github.com/banmen/banmen/sdk/examples/tictactoe/cmd/tictactoe")
	for _, grpcOnly := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := host.Launch(ctx, host.LaunchConfig{Cmd: exec.Command(bin), GRPCOnly: grpcOnly})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Kill()
		s, v, err := c.Start(ctx, host.StartRequest{Variant: "tictactoe"})
		if err != nil {
			t.Fatal(err)
		}
		f(ctx, c, grpcOnly, s, v)
	}
}

// HistoryFrom trims the View's History and nothing else, on both lanes.
func TestHistoryFrom(t *testing.T) {
	onBothLanes(t, func(ctx context.Context, c *host.Conn, grpcOnly bool, s sdk.State, v sdk.View) {
		const id = "tictactoe"
		var err error
		for range 3 {
			if s, v, err = c.Play(ctx, host.PlayRequest{Variant: id, State: s, Seat: v.Legal[0].Seat, Move: v.Legal[0].Move}); err != nil {
				t.Fatal(err)
			}
		}
		m := v.Legal[0]
		full, fullView, err := c.Play(ctx, host.PlayRequest{Variant: id, State: s, Seat: m.Seat, Move: m.Move})
		if err != nil {
			t.Fatal(err)
		}
		if len(fullView.History) != 4 {
			t.Fatalf("grpcOnly %v: %d History entries, want 4", grpcOnly, len(fullView.History))
		}
		for _, tc := range []struct {
			from int
			want []sdk.PlayedMove
		}{
			{-5, fullView.History}, {0, fullView.History}, {1, fullView.History[1:]},
			{3, fullView.History[3:]}, {4, fullView.History[4:]}, {100, fullView.History[4:]},
		} {
			st, lean, err := c.Play(ctx, host.PlayRequest{Variant: id, State: s, Seat: m.Seat, Move: m.Move, HistoryFrom: tc.from})
			if err != nil {
				t.Fatal(err)
			}
			want := fullView
			want.History = tc.want
			if string(st) != string(full) || !reflect.DeepEqual(lean, want) {
				t.Errorf("grpcOnly %v: Play with HistoryFrom(%d):\n%+v\nwant\n%+v", grpcOnly, tc.from, lean, want)
			}
			view, err := c.View(ctx, host.ViewRequest{Variant: id, State: full, HistoryFrom: tc.from})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(view, want) {
				t.Errorf("grpcOnly %v: View with HistoryFrom(%d):\n%+v\nwant\n%+v", grpcOnly, tc.from, view, want)
			}
		}
	})
}
