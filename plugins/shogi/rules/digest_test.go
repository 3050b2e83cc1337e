package rules

import (
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

// viewDigest is the digest of every View and State of the random games of
// TestViewDigest, computed with the implementation before the View was made
// faster (building names in place, no sort). A change to the rules, the names or the order of the legal
// list changes it; a change that only makes the same View faster must not.
const viewDigest = "f6e97de9eb2174655c06c877789824ae71f08ffd16c301fc5e67f36a3471086d"

// TestViewDigest plays random games (seeded, cut at ply 160) and hashes
// every View and State on the way (sdktest.ViewDigest), so that the View's
// whole content, the legal list's order and texts included, stays what it
// was.
func TestViewDigest(t *testing.T) {
	d := sdktest.NewViewDigest()
	sdktest.DigestRandomGames(t, Variant{}, d, 200, 160, 0)
	// Positions where declaring is legal, and rival pieces told apart.
	for _, sfen := range []string{
		"+P+P+P+P5/RB2K4/+P+P+P+P5/9/9/9/9/9/8k b RB 1",
		"4k4/9/9/9/9/9/3GGG3/3G5/4K4 b 2S2N 1",
		"4k4/9/9/2S1S4/9/2S1S4/9/9/4K4 b - 1",
		"k8/9/9/9/4+R4/9/9/1+R7/4K4 b - 1",
		"4k4/9/9/9/9/9/9/+B7+B/3K5 b - 1",
	} {
		g := gameFrom(t, sfen)
		d.Put(t, g.encode(), g.view())
	}
	if got := d.Sum(); got != viewDigest {
		t.Fatalf("view digest %s, want %s", got, viewDigest)
	}
}
