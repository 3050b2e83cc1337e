package main

import (
	"bytes"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// TestGameMarks: the generated moves mark drops and promotions the player
// chose (both forms legal), and not a forced promotion or a plain move.
func TestGameMarks(t *testing.T) {
	legal := []sdk.LegalMove{
		{Kind: sdk.BoardMove, Move: "7g7f", Text: "▲７六歩", From: 60, To: 51},
		{Kind: sdk.BoardMove, Move: "8h2b+", Text: "▲２二角成", From: 70, To: 16, Promote: true},
		{Kind: sdk.BoardMove, Move: "8h2b", Text: "▲２二角不成", From: 70, To: 16},
		{Kind: sdk.BoardMove, Move: "1c1b+", Text: "▲１二歩成", From: 26, To: 17, Promote: true},
		{Kind: sdk.DropMove, Move: "P*5e", Text: "▲５五歩打", From: -1, To: 40, Drop: "P"},
	}
	for m, want := range map[sdk.Move]string{
		"7g7f":  "",
		"8h2b+": `promotes (optional: the dialog asks), shown "▲２二角成"`,
		"8h2b":  `declines the promotion (optional: the dialog asks), shown "▲２二角不成"`,
		"1c1b+": "",
		"P*5e":  `drop of P, shown "▲５五歩打"`,
	} {
		if got := markOf(legal, m); got != want {
			t.Errorf("markOf(%s) = %q, want %q", m, got, want)
		}
	}
	var b bytes.Buffer
	writeMoves(&b, []played{{move: "7g7f"}, {move: "3c3d"}, {move: "P*5e", mark: "drop of P"}})
	if want := "  - moves: [7g7f, 3c3d, P*5e]\n    # ply 3 P*5e: drop of P\n"; b.String() != want {
		t.Errorf("writeMoves:\n%s\nwant\n%s", b.String(), want)
	}
}
