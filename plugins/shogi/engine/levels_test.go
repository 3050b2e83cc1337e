package engine

import (
	"slices"
	"testing"

	"github.com/banmen/banmen/plugins/shogi/rules"
	"github.com/banmen/banmen/sdk"
)

// The served variant offers the computer levels, and this engine plays
// exactly those; the bare rules, which have no computer player, list none.
func TestDescribeListsTheEngineLevels(t *testing.T) {
	d := New(func(string) string { return "" }).Describe()
	if !slices.Equal(d.Levels, []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard}) {
		t.Errorf("levels %v", d.Levels)
	}
	for _, l := range d.Levels {
		if _, ok := levels[l]; !ok {
			t.Errorf("level %q is listed but not played", l)
		}
	}
	if len(levels) != len(d.Levels) {
		t.Errorf("the engine plays %d levels, the description lists %d", len(levels), len(d.Levels))
	}
	if len(rules.Variant{}.Describe().Levels) != 0 {
		t.Error("the rules alone list levels")
	}
}
