package rules

import (
	"context"
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
		{"mates in one", "fen 4k4/R8/9/9/9/9/9/9/9/3K4R w - - 0 1", sdk.Hard, "i0i9"},
	}
	for _, tc := range tests {
		st, _, err := Variant{}.Import(NotationFENUCCI, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		m, err := Variant{}.Suggest(ctx, st, tc.level)
		cancel()
		if err != nil || string(m) != tc.want {
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
