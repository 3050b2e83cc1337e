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

// The plugin answers Play and View packed on both lanes; the host hands back
// a plain View either way. Over the channel the host reads the packed answer
// in one pass (wire.DecodeGame), over gRPC through ToView: a whole game, each
// ply's Play, View and a refused move, must give the same state and View.
func TestLanesGiveTheSameView(t *testing.T) {
	bin := sdktest.BuildPlugin(t, "github.com/banmen/banmen/sdk/examples/tictactoe/cmd/tictactoe")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var conns [2]*host.Conn
	for i, grpcOnly := range []bool{false, true} {
		c, err := host.Launch(ctx, host.LaunchConfig{Cmd: exec.Command(bin), GRPCOnly: grpcOnly})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Kill()
		if c.Channel() == grpcOnly {
			t.Fatalf("GRPCOnly %v: Channel() %v", grpcOnly, c.Channel())
		}
		conns[i] = c
	}
	const id = "tictactoe"
	s, v, err := conns[0].Start(ctx, host.StartRequest{Variant: id})
	if err != nil {
		t.Fatal(err)
	}
	if s1, v1, err := conns[1].Start(ctx, host.StartRequest{Variant: id}); err != nil || string(s1) != string(s) || !reflect.DeepEqual(v1, v) {
		t.Fatalf("Start over gRPC: %q %+v %v; over the channel %q %+v", s1, v1, err, s, v)
	}
	for ply := 0; len(v.Legal) > 0; ply++ {
		if len(v.Board) == 0 {
			t.Fatalf("ply %d: a View without its board", ply)
		}
		m := v.Legal[len(v.Legal)/2]
		var states [2]sdk.State
		var views, viewed [2]sdk.View
		for i, c := range conns {
			if states[i], views[i], err = c.Play(ctx, host.PlayRequest{Variant: id, State: s, Seat: m.Seat, Move: m.Move}); err != nil {
				t.Fatal(err)
			}
			if viewed[i], err = c.View(ctx, host.ViewRequest{Variant: id, State: states[i]}); err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Play(ctx, host.PlayRequest{Variant: id, State: s, Seat: m.Seat, Move: "no such move"}); err == nil {
				t.Fatalf("lane %d, ply %d: an illegal move was played", i, ply)
			}
		}
		if string(states[0]) != string(states[1]) || !reflect.DeepEqual(views[0], views[1]) || !reflect.DeepEqual(viewed[0], viewed[1]) {
			t.Fatalf("ply %d: the channel gave %q\n%+v\n%+v\ngRPC gave %q\n%+v\n%+v", ply, states[0], views[0], viewed[0], states[1], views[1], viewed[1])
		}
		if !reflect.DeepEqual(views[0], viewed[0]) {
			t.Errorf("ply %d: Play's View\n%+v\nView's\n%+v", ply, views[0], viewed[0])
		}
		s, v = states[0], views[0]
	}
}
