package rules

import (
	"context"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
)

func TestSuggestTakesTheMate(t *testing.T) {
	// South mates North with the pawn push 5c5b (or its promotion); every
	// level must see it.
	text := layout("5i=Ks 4c=Ss 6c=Ss 4a=Pn 6a=Pn 5a=Kn 9e=Kw 1e=Ke 5c=Ps", "s - - "+singles)
	st, _, err := Variant{}.Import(formatID, text)
	if err != nil {
		t.Fatal(err)
	}
	for _, level := range []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		m, err := Variant{}.Suggest(ctx, st, level)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if m != "S:5c5b" && m != "S:5c5b+" {
			t.Errorf("%s suggests %s, not the mate", level, m)
		}
	}
}

func TestSuggestIsDeterministicAndLegal(t *testing.T) {
	st, v, _ := Variant{}.Start(nil)
	for range 12 {
		a, err := Variant{}.Suggest(context.Background(), st, sdk.Hard)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Variant{}.Suggest(context.Background(), st, sdk.Hard)
		if a != b {
			t.Fatalf("two suggestions for one state: %s, %s", a, b)
		}
		if st, v, err = (Variant{}).Play(st, v.ToMove[0], a); err != nil {
			t.Fatalf("suggested %s: %v", a, err)
		}
	}
}
