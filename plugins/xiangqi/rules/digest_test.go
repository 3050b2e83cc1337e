package rules

import (
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

// viewDigest is the digest of every View and State of the random games of
// TestViewDigest, computed with the implementation before the View was made
// faster (History kept with the game, names built in one buffer). A change to the rules, the names or the order of the legal
// list changes it; a change that only makes the same View faster must not.
const viewDigest = "865b1624da3f55bb2c9366af3f0f824674c112ea648e7fea40f9328224e9617c"

// TestViewDigest plays random games (seeded, cut at ply 160) and hashes
// every View and State on the way (sdktest.ViewDigest), so that the View's
// whole content, the legal list's order and texts included, stays what it
// was. Every 8th game ends in a resignation, whose History entry is its own.
func TestViewDigest(t *testing.T) {
	d := sdktest.NewViewDigest()
	sdktest.DigestRandomGames(t, Variant{}, d, 200, 160, 8)
	if got := d.Sum(); got != viewDigest {
		t.Fatalf("view digest %s, want %s", got, viewDigest)
	}
}
