package connect4_test

import (
	"testing"

	"example.com/connect4"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/sdktest"
)

func TestConformance(t *testing.T) { sdktest.Run(t, connect4.Variant{}) }

// TestTexts: English and German are complete (the other languages of the
// site show the English, saying so).
func TestTexts(t *testing.T) {
	if err := sdktest.CheckTextsComplete(connect4.Variant{}.Describe(), "en", "de"); err != nil {
		t.Error(err)
	}
}

// play plays the columns from the start and returns the last view.
func play(t *testing.T, cols string) (sdk.State, sdk.View) {
	t.Helper()
	v := connect4.Variant{}
	s, view, err := v.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cols {
		if s, view, err = v.Play(s, sdk.Seat(i%2), sdk.Move(string(c))); err != nil {
			t.Fatalf("move %d %c: %v", i+1, c, err)
		}
	}
	return s, view
}

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		name, cols string
		winner     sdk.Seat // NoSeat: still playing
	}{
		{"column", "abababa", 0},
		{"row", "aabbccd", 0},
		{"diagonal", "abbccdcddgd", 0},
		{"yellow column", "agbgagbg", 1},
		{"not yet", "aabbcc", sdk.NoSeat},
	} {
		_, v := play(t, tc.cols)
		got := sdk.NoSeat
		if v.Result != nil && len(v.Result.Winners) == 1 {
			got = v.Result.Winners[0]
		}
		switch {
		case tc.winner == sdk.NoSeat && v.Status != sdk.Playing:
			t.Errorf("%s: over (%+v), want playing", tc.name, v.Result)
		case tc.winner != sdk.NoSeat && (got != tc.winner || v.Result.Reason != "result.connect4.four"):
			t.Errorf("%s: result %+v, want seat %d by four in a row", tc.name, v.Result, tc.winner)
		}
	}
	// A disc lands at the bottom of its column: the first drop into d is on
	// the lowest row, the second on the one above.
	_, v := play(t, "d")
	if v.Board[5*7+3].Kind != "R" || v.Legal[3].To != 4*7+3 {
		t.Errorf("after d: bottom %+v, next drop into d at %d", v.Board[5*7+3], v.Legal[3].To)
	}
	s, _ := play(t, "aaaaaa")
	if _, _, err := (connect4.Variant{}).Play(s, 0, "a"); err == nil {
		t.Error("a disc went into a full column")
	} else if re, ok := sdk.AsRuleError(err); !ok || re.Code != "column_full" {
		t.Errorf("full column: %v", err)
	}
}

func FuzzState(f *testing.F) {
	s, _ := play(&testing.T{}, "dcde")
	f.Add([]byte(s))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := connect4.Variant{}.View(sdk.State(b))
		if err == nil {
			if err := sdktest.CheckView(connect4.Variant{}.Describe(), v); err != nil {
				t.Fatal(err)
			}
		}
	})
}
