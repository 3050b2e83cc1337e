package engine

import (
	"context"
	"testing"
	"time"

	"github.com/banmen/banmen/plugins/yonin/rules"
	"github.com/banmen/banmen/sdk"
)

// TestTrace shows Hard's iterations, and those of the paranoid search it
// had before best replies, on two positions of a game.
func TestTrace(t *testing.T) {
	if testing.Short() || !testing.Verbose() {
		t.Skip("a tuning aid: go test -v -run Trace")
	}
	defer func() { debugf = nil }()
	for _, plies := range []int{20, 40} {
		st := midgame(t, plies)
		g, err := rules.DecodeState(st)
		if err != nil {
			t.Fatal(err)
		}
		debugf = t.Logf
		for _, name := range []string{"hard", "hard:brs=0:strict=0"} {
			cfg := arenaConfig(t, name)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			t0 := time.Now()
			p := g.Position()
			m := Choose(ctx, g, cfg)
			cancel()
			t.Logf("%d plies, %s: %s in %v", plies, name, rules.MoveText(p.Turn(), m), time.Since(t0))
		}
		debugf = nil
	}
	_ = sdk.Hard
}
