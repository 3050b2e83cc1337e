package rules

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// TestHistoryTextsAsReplayed: the History and LastMove that the game records
// as it plays are those that replaying the moves from the start gives (how
// the View used to write them, at a cost growing with the game).
func TestHistoryTextsAsReplayed(t *testing.T) {
	plies := 200
	if testing.Short() {
		plies = 60
	}
	for seed := range uint64(6) {
		opts := []sdk.Options{{}, {"format": "pairs"}, {"ending": "last_player", "mated_pieces": "ownerless"}}[seed%3]
		s, v, err := Variant{}.Start(opts)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 3))
		for v.Status == sdk.Playing && v.Ply < plies {
			m := v.Legal[r.IntN(len(v.Legal))]
			if s, v, err = (Variant{}).Play(s, m.Seat, m.Move); err != nil {
				t.Fatal(err)
			}
			g, err := replayState(s)
			if err != nil {
				t.Fatal(err)
			}
			var history []sdk.PlayedMove
			var last *sdk.LegalMove
			q := g.start
			for i, m := range g.moves {
				seat := int(g.movers[i])
				lm := legalMove(&q, seat, m)
				history = append(history, sdk.PlayedMove{Seat: lm.Seat, Move: lm.Move, Text: lm.Text})
				if i == len(g.moves)-1 {
					last = &lm
				}
				q.turn = int8(seat)
				q.play(m)
			}
			if !reflect.DeepEqual(v.History, history) || !reflect.DeepEqual(v.LastMove, last) {
				t.Fatalf("seed %d ply %d: History %+v, LastMove %+v; replayed %+v, %+v", seed, v.Ply, v.History, v.LastMove, history, last)
			}
		}
	}
}
