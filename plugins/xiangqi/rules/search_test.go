package rules

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
)

func TestSuggest(t *testing.T) {
	tests := []struct {
		name, text string
		level      sdk.Level
		want       string
	}{
		// A free chariot on the open file: take it.
		{"takes a hanging chariot", "fen 3k5/9/9/9/4r4/9/9/9/4R4/5K3 w - - 0 1", sdk.Medium, "e1e5"},
		// Mate in one with the second chariot.
		// Mate with the second chariot, or stalemate (which wins too).
		{"wins in one", "fen 4k4/R8/9/9/9/9/9/9/9/3K4R w - - 0 1", sdk.Hard, "i0i9|a8f8"},
	}
	for _, tc := range tests {
		st, _, err := Variant{}.Import(NotationFENUCCI, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		m, err := Variant{}.Suggest(ctx, st, tc.level)
		cancel()
		if err != nil || !slices.Contains(strings.Split(tc.want, "|"), string(m)) {
			t.Errorf("%s: Suggest = %q, %v; want %s", tc.name, m, err, tc.want)
		}
	}
}

func TestSuggestDeterministic(t *testing.T) {
	st, _, _ := Variant{}.Start(nil)
	for _, l := range []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard} {
		a, err1 := Variant{}.Suggest(context.Background(), st, l)
		b, err2 := Variant{}.Suggest(context.Background(), st, l)
		if err1 != nil || err2 != nil || a != b {
			t.Errorf("%s: %q then %q (%v, %v)", l, a, b, err1, err2)
		}
	}
	if _, err := (Variant{}).Suggest(context.Background(), st, "expert"); !hasCode(err, sdk.CodeBadOption) {
		t.Errorf("unknown level: %v", err)
	}
}

func TestSuggestDeadline(t *testing.T) {
	st, _, _ := Variant{}.Import(NotationWXF, "1. C2.5 H8+7 2. H2+3 R9.8")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	m, err := Variant{}.Suggest(ctx, st, sdk.Hard)
	if el := time.Since(t0); el > 200*time.Millisecond || err != nil || m == "" {
		t.Errorf("Suggest with 50 ms: %q, %v after %v", m, err, el)
	}
}

// TestRootEnds checks the game-rule scores of root moves, which the search
// itself does not see.
func TestRootEnds(t *testing.T) {
	tests := []struct {
		name, text, move string
		score            int
	}{
		// h8h9 would repeat the start a third time, Red checking throughout.
		{"perpetual check loses", "fen 4k2R1/9/9/9/9/9/9/9/9/3K5 b - - 0 1 moves e9e8 h9h8 e8e9 h8h9 e9e8 h9h8 e8e9",
			"h8h9", -mateScore + 1},
		{"repetition draws", "startpos moves b0c2 b9c7 c2b0 c7b9 b0c2 b9c7 c2b0", "c7b9", 0},
		{"mate wins", "fen 4k4/R8/9/9/9/9/9/9/9/3K4R w - - 0 1", "i0i9", mateScore - 1},
		{"sixty moves draws", "fen 4k4/9/9/9/9/9/9/9/9/3K5 w - - 119 70", "d0d1", 0},
	}
	for _, tc := range tests {
		g, err := importFENUCCI(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := ParseUCCI(tc.move)
		before, plies := g.pos.FEN(), len(g.moves)
		ends := g.rootEnds()
		if got, ok := ends[m]; !ok || got != tc.score {
			t.Errorf("%s: %s scores %d (%v), want %d", tc.name, tc.move, got, ok, tc.score)
		}
		if g.pos.FEN() != before || len(g.moves) != plies || len(g.keys) != plies+1 {
			t.Errorf("%s: rootEnds changed the game", tc.name)
		}
	}
	// The search obeys the fixed scores: the hanging chariot is not taken
	// when taking it is scored as a loss.
	g, _ := importFENUCCI("fen 3k5/9/9/9/4r4/9/9/9/4R4/5K3 w - - 0 1")
	take, _ := ParseUCCI("e1e5")
	if m := search(context.Background(), g.Position(), 3, time.Now().Add(time.Minute), false, map[Move]int{take: -mateScore + 1}); m == take {
		t.Error("search played a move scored as a loss")
	}
}
