package rules

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestKIFExport(t *testing.T) {
	g := gameFrom(t, StartSFEN, sampleMoves...)
	if err := g.play(g.pos.side, sdk.Resign); err != nil {
		t.Fatal(err)
	}
	text := g.exportKIF()
	for _, want := range []string{
		"#KIF version=2.0 encoding=UTF-8\n", "手合割：平手\n", "先手：\n", "後手：\n", "手数----指手---------消費時間--\n",
		"   1 ７六歩(77)", "   3 ２二角成(88)", "   4 同　銀(31)", "   5 ４五角打", "   9 ４三角不成(34)",
		"  13 投了\n", "まで12手で後手の勝ち\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("KIF lacks %q:\n%s", want, text)
		}
	}
}

func TestImportBOD(t *testing.T) {
	kif := `後手の持駒：飛　角　金四　銀三　桂三　香二　歩十七　
  ９ ８ ７ ６ ５ ４ ３ ２ １
+---------------------------+
| ・ ・ ・ ・ ・ ・ ・ ・v玉|一
| ・ ・ ・ ・ ・ ・ ・ ・ ・|二
| ・ ・ ・ ・ ・ ・ ・ 銀 ・|三
| ・ ・ ・ ・ ・ ・ ・ ・ ・|四
| ・ ・ ・ ・ ・ ・ ・ ・ ・|五
| ・ ・ ・ ・ ・ ・ ・ ・ ・|六
| ・ ・ ・ ・ ・ ・ ・ ・ ・|七
| ・ ・ ・ ・ ・ ・ ・ ・ ・|八
| 香 ・ ・ ・ 玉 ・ ・ ・ ・|九
+---------------------------+
先手の持駒：桂　歩　
手数----指手---------消費時間--
   1 ２二銀成(23)
`
	_, v, err := Variant{}.Import(FormatKIF, kif)
	if err != nil {
		t.Fatal(err)
	}
	if want := "8k/7+S1/9/9/9/9/9/9/L3K4 w NPrb4g3s3n2l17p 2"; v.Position != want {
		t.Errorf("position %q, want %q", v.Position, want)
	}
}
