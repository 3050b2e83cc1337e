package rules

import (
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

// TestCacheSameAnswers: a cached game answers as a replayed one, however
// the games that share a cached one play on.
func TestCacheSameAnswers(t *testing.T) {
	n := 160
	if testing.Short() {
		n = 40
	}
	sdktest.CheckCache(t, Variant{}, func(f func()) {
		saved := games
		games = nil
		defer func() { games = saved }()
		f()
	}, 2, n)
}
