package rules

import (
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

// BenchmarkPlay is the cost of one move as a room pays it, early, in the
// middle and late in a game.
func BenchmarkPlay(b *testing.B) { sdktest.BenchmarkPlay(b, Variant{}, 10, 80, 160) }
