package rules

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// TestExportAnalysed: the KIF carries each analysed position's evaluation
// and line under the move that led to it, reads back as the same game, and
// a line's illegal tail is left out.
func TestExportAnalysed(t *testing.T) {
	v := Variant{}
	st, _, err := v.Import(FormatSFENUSI, "startpos moves 7g7f 3c3d")
	if err != nil {
		t.Fatal(err)
	}
	as := []sdk.PlyAnalysis{
		{Ply: 0, Analysis: sdk.Analysis{Scores: []sdk.Score{{Seat: 0, CP: 35}, {Seat: 1, CP: -35}}, Best: "7g7f", PV: []sdk.Move{"7g7f", "3c3d"}}},
		{Ply: 2, Analysis: sdk.Analysis{Scores: []sdk.Score{{Seat: 0, Mate: -3}, {Seat: 1, Mate: 3}}, Best: "8h2b+", PV: []sdk.Move{"8h2b+", "3a2b", "9i9a"}}},
		{Ply: 99, Analysis: sdk.Analysis{Best: "7g7f"}},
	}
	text, err := v.ExportAnalysed(st, FormatKIF, "ja", as)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"手数----指手---------消費時間--\n*評価値 +35\n*読み筋 ▲７六歩(77) △３四歩(33)\n   1 ７六歩(77)",
		"   2 ３四歩(33)   ( 0:00/00:00:00)\n*評価値 後手の3手詰\n*読み筋 ▲２二角成(88) △同　銀(31)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the record lacks %q:\n%s", want, text)
		}
	}
	st2, _, err := v.Import(FormatKIF, text)
	if err != nil {
		t.Fatalf("import the analysed record: %v\n%s", err, text)
	}
	plain, _ := v.Export(st, FormatSFENUSI)
	back, _ := v.Export(st2, FormatSFENUSI)
	if plain != back {
		t.Errorf("read back as %q, want %q", back, plain)
	}
	if sfen, err := v.ExportAnalysed(st, FormatSFENUSI, "", as); err != nil || sfen != plain {
		t.Errorf("SFEN with analyses: %q, %v; want the plain %q", sfen, err, plain)
	}
}
