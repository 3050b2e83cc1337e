package rules

import (
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

// viewDigest is the digest of every View and State of the random games of
// TestViewDigest, computed with the implementation before the View was made
// faster (History shared with the game, names built in one buffer). A change to the rules, the names or the order of the legal
// list changes it; a change that only makes the same View faster must not.
const viewDigest = "cd6e5704b6dea27a4e1c639b39e4b2c6b0ed08f20c3ec3269be6e1fda4ceed14"

// TestViewDigest plays random games (seeded, cut at ply 160) and hashes
// every View and State on the way (sdktest.ViewDigest), so that the View's
// whole content, the legal list's order and texts included, stays what it
// was.
func TestViewDigest(t *testing.T) {
	d := sdktest.NewViewDigest()
	sdktest.DigestRandomGames(t, Variant{}, d, 200, 160, 0)
	if got := d.Sum(); got != viewDigest {
		t.Fatalf("view digest %s, want %s", got, viewDigest)
	}
}
