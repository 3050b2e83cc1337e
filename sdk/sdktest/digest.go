package sdktest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"math/rand/v2"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// ViewDigest hashes States and Views, so that a variant can pin what it
// answers (every field of every View, the legal list's order and texts
// included) before making it faster: a change that only makes the same
// answers cheaper leaves the digest as it was.
type ViewDigest struct{ h hash.Hash }

// NewViewDigest returns an empty digest.
func NewViewDigest() *ViewDigest { return &ViewDigest{h: sha256.New()} }

// Put adds a State and its View. A game's History grows by one record a
// move and its old records never change, so a View of a game in progress
// contributes only its last record; one that is over, the whole History.
func (d *ViewDigest) Put(t testing.TB, st sdk.State, v sdk.View) {
	t.Helper()
	d.h.Write(st)
	if hist := v.History; v.Status == sdk.Playing && len(hist) > 0 {
		v.History = hist[len(hist)-1:]
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	d.h.Write(b)
}

// Sum is the digest so far, in hex.
func (d *ViewDigest) Sum() string { return hex.EncodeToString(d.h.Sum(nil)) }

// DigestRandomGames plays games random games of v (default options, moves
// drawn by a PCG seeded with 13 and 2026, each cut at maxPly) and puts every
// State and View on the way into d. The game numbered a multiple of
// resignEvery (none when 0) that is still being played at maxPly ends with
// the player to move resigning. Each game ends with its whole History.
func DigestRandomGames(t testing.TB, v sdk.Variant, d *ViewDigest, games, maxPly, resignEvery int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(13, 2026))
	for game := range games {
		st, view, err := v.Start(nil)
		if err != nil {
			t.Fatal(err)
		}
		d.Put(t, st, view)
		for ply := 0; ply < maxPly && view.Status == sdk.Playing; ply++ {
			l := view.Legal[rng.IntN(len(view.Legal))]
			if st, view, err = v.Play(st, l.Seat, l.Move); err != nil {
				t.Fatal(err)
			}
			d.Put(t, st, view)
		}
		if resignEvery > 0 && game%resignEvery == 0 && view.Status == sdk.Playing {
			if st, view, err = v.Play(st, view.ToMove[0], sdk.Resign); err != nil {
				t.Fatal(err)
			}
		}
		view.Status = sdk.Over // the whole History
		d.Put(t, st, view)
	}
}
