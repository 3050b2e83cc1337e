package rules

import (
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

// BenchmarkPlay is the cost of one move as a room pays it, early, in the
// middle and late in a game.
func BenchmarkPlay(b *testing.B) { sdktest.BenchmarkPlay(b, Variant{}, 10, 80, 160) }

// BenchmarkServedPlay is a Play as the plugin process serves it to the
// host over the lane, request bytes in and reply bytes out, over 300
// rooms' games cut at ply 160 as the load command plays them.
func BenchmarkServedPlay(b *testing.B) { sdktest.BenchmarkServedPlay(b, Variant{}, 300, 160) }
