package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// viewDigest is the digest of every View and State of the random games of
// TestViewDigest, computed with the implementation before the View was made
// faster (History shared with the game, names built in one buffer). A change to the rules, the
// names or the order of the legal list changes it; a change that only makes
// the same View faster must not.
const viewDigest = "cd6e5704b6dea27a4e1c639b39e4b2c6b0ed08f20c3ec3269be6e1fda4ceed14"

// TestViewDigest plays random games (seeded, cut at ply 160) and hashes
// every View and State on the way, so that the View's whole content, the
// legal list's order and texts included, stays what it was. A game's
// History grows by one record a move and its old records never change, so
// each View contributes its last record and the whole History only at the
// game's end.
func TestViewDigest(t *testing.T) {
	const games = 200
	h := sha256.New()
	put := func(st sdk.State, v sdk.View) {
		h.Write(st)
		hist := v.History
		if v.Status == sdk.Playing && len(hist) > 0 {
			v.History = hist[len(hist)-1:]
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	rng := rand.New(rand.NewPCG(13, 2026))
	for range games {
		st, v, err := Variant{}.Start(nil)
		if err != nil {
			t.Fatal(err)
		}
		put(st, v)
		for ply := 0; ply < 160 && v.Status == sdk.Playing; ply++ {
			l := v.Legal[rng.IntN(len(v.Legal))]
			if st, v, err = (Variant{}).Play(st, l.Seat, l.Move); err != nil {
				t.Fatal(err)
			}
			put(st, v)
		}
		v.Status = sdk.Over // the whole History
		put(st, v)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != viewDigest {
		t.Fatalf("view digest %s, want %s", got, viewDigest)
	}
}
