package engine

import (
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
)

func TestTrace(t *testing.T) {
	if testing.Short() || !testing.Verbose() {
		t.Skip("a tuning aid: go test -v -run Trace")
	}
	debugf = t.Logf
	defer func() { debugf = nil }()
	for _, plies := range []int{20, 40} {
		st := midgame(t, plies)
		t0 := time.Now()
		m := suggest(t, st, sdk.Hard, 3*time.Second)
		t.Logf("%d plies: %s in %v", plies, m, time.Since(t0))
	}
}
