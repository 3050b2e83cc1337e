package rules

import (
	"context"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
)

func TestSuggest(t *testing.T) {
	tests := []struct {
		name  string
		sfen  string
		level sdk.Level
		want  string
	}{
		{"takes a hanging rook", "4k4/9/9/9/4r4/9/9/4R4/4K4 b - 1", sdk.Easy, "5h5e"},
		{"mates in one", "8k/9/6NGP/9/9/9/9/9/4K4 b - 1", sdk.Medium, "1c1b+"},
		{"declares when it can", "+P+P+P+P5/RB2K4/+P+P+P+P5/9/9/9/9/9/8k b RB 1", sdk.Easy, "win"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := gameFrom(t, tc.sfen)
			m, err := Variant{}.Suggest(context.Background(), g.encode(), tc.level)
			if err != nil {
				t.Fatal(err)
			}
			if string(m) != tc.want {
				t.Errorf("Suggest = %s, want %s", m, tc.want)
			}
		})
	}
}

// TestSuggestDeterministic asks twice at every level: the same answer, a
// legal one, before the deadline.
func TestSuggestDeterministic(t *testing.T) {
	g := gameFrom(t, StartSFEN, sampleMoves...)
	s := g.encode()
	for _, level := range []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard} {
		var first sdk.Move
		for i := 0; i < 2; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			start := time.Now()
			m, err := Variant{}.Suggest(ctx, s, level)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if time.Since(start) > 5*time.Second {
				t.Errorf("%s took %v", level, time.Since(start))
			}
			if err := gameFrom(t, StartSFEN, sampleMoves...).play(g.pos.side, m); err != nil {
				t.Errorf("%s suggested an illegal %s: %v", level, m, err)
			}
			if i == 0 {
				first = m
			} else if m != first {
				t.Errorf("%s: %s then %s", level, first, m)
			}
		}
	}
}

func TestSuggestDeadline(t *testing.T) {
	g := gameFrom(t, "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	m, err := Variant{}.Suggest(ctx, g.encode(), sdk.Hard)
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 150*time.Millisecond {
		t.Errorf("Suggest took %v with a 100 ms deadline", el)
	}
	if err := g.play(g.pos.side, m); err != nil {
		t.Errorf("illegal %s: %v", m, err)
	}
}
