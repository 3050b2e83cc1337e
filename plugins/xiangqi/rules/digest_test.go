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
// faster (History kept with the game, names built in one buffer). A change to the rules, the
// names or the order of the legal list changes it; a change that only makes
// the same View faster must not.
const viewDigest = "865b1624da3f55bb2c9366af3f0f824674c112ea648e7fea40f9328224e9617c"

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
	for game := range games {
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
		if game%8 == 0 && v.Status == sdk.Playing {
			// A resignation ends the History with its own entry.
			if st, v, err = (Variant{}).Play(st, v.ToMove[0], sdk.Resign); err != nil {
				t.Fatal(err)
			}
		}
		v.Status = sdk.Over // the whole History
		put(st, v)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != viewDigest {
		t.Fatalf("view digest %s, want %s", got, viewDigest)
	}
}
