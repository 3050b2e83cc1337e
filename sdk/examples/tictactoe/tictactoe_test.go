package tictactoe_test

import (
	"testing"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/examples/tictactoe"
	"github.com/banmen/banmen/sdk/sdktest"
)

// TestConformance is the one test every variant must have.
func TestConformance(t *testing.T) {
	sdktest.Run(t, tictactoe.Variant{})
}

// play plays moves from the start, alternating X and O, and fails on a
// rejection.
func play(t *testing.T, moves ...sdk.Move) (sdk.State, sdk.View) {
	t.Helper()
	v := tictactoe.Variant{}
	s, view, err := v.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range moves {
		if s, view, err = v.Play(s, sdk.Seat(i%2), m); err != nil {
			t.Fatalf("move %d %q: %v", i+1, m, err)
		}
	}
	return s, view
}

func TestRules(t *testing.T) {
	tests := []struct {
		name     string
		moves    []sdk.Move
		status   sdk.Status
		winners  []sdk.Seat
		reason   string
		position string
	}{
		{"start", nil, sdk.Playing, nil, "", ".../.../... x"},
		{"centre", []sdk.Move{"b2"}, sdk.Playing, nil, "", ".../.x./... o"},
		{"X wins the top row", []sdk.Move{"a3", "a1", "b3", "b1", "c3"}, sdk.Over, []sdk.Seat{0}, "result.three_in_row", "xxx/.../oo. o"},
		{"O wins a diagonal", []sdk.Move{"a3", "c3", "b3", "b2", "c2", "a1"}, sdk.Over, []sdk.Seat{1}, "result.three_in_row", "xxo/.ox/o.. x"},
		{"draw", []sdk.Move{"b2", "a1", "c1", "a3", "a2", "c2", "b3", "b1", "c3"}, sdk.Over, nil, "result.draw", "oxx/xxo/oox o"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, v := play(t, tt.moves...)
			if v.Status != tt.status || v.Position != tt.position {
				t.Errorf("status %s, position %q; want %s, %q", v.Status, v.Position, tt.status, tt.position)
			}
			if tt.status == sdk.Over && (v.Result == nil || v.Result.Reason != tt.reason || len(v.Result.Winners) != len(tt.winners) ||
				(len(tt.winners) == 1 && v.Result.Winners[0] != tt.winners[0])) {
				t.Errorf("result %+v; want winners %v, reason %s", v.Result, tt.winners, tt.reason)
			}
		})
	}
}
