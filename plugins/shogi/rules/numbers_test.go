package rules

import (
	"strings"
	"testing"
)

// TestHistoryNumbersFollowKIF: a game from a position with a move number
// numbers its History as its KIF export does; from move 1 it needs none.
func TestHistoryNumbersFollowKIF(t *testing.T) {
	v := Variant{}
	sfen := strings.TrimSuffix(StartSFEN, " 1") + " 37"
	st, view, err := v.Import(FormatSFENUSI, "sfen "+sfen+" moves 7g7f 3c3d")
	if err != nil {
		t.Fatal(err)
	}
	if got := []int{view.History[0].Number, view.History[1].Number}; got[0] != 37 || got[1] != 38 {
		t.Errorf("numbers %v, want [37 38]", got)
	}
	kif, err := v.Export(st, FormatKIF)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(kif, "  37 ") || !strings.Contains(kif, "  38 ") {
		t.Errorf("the KIF export numbers otherwise:\n%s", kif)
	}
	_, view, err = v.Import(FormatSFENUSI, "sfen "+StartSFEN+" moves 7g7f")
	if err != nil {
		t.Fatal(err)
	}
	if n := view.History[0].Number; n != 0 {
		t.Errorf("from move 1 the History says number %d, want 0 (its ply)", n)
	}
}
