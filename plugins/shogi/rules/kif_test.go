package rules

import (
	"math/rand/v2"
	"regexp"
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
		"   1 ７六歩(77)", "   3 ２二角成(88)", "   4 同　銀(31)", "   5 ４五角打", "   9 ４三角(34)",
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

// kifMoveLine is what KIF writers (Kifu for Windows, ShogiGUI, tsshogi,
// python-shogi) put on a move line: the number, the destination or 同 (with
// a full-width space before a one-character piece), the piece, then 成 and
// the source cell, the source cell alone, or 打; or a special move. Nothing
// else stands there: 不成 is KI2's, and the KIF readers of python-shogi and
// tsshogi do not accept it (tsshogi drops the rest of the record).
var kifMoveLine = regexp.MustCompile(`^ *[0-9]+ (?:` +
	`(?:[１-９][一二三四五六七八九](?:歩|香|桂|銀|金|角|飛|玉|と|成香|成桂|成銀|馬|龍)|同　(?:歩|香|桂|銀|金|角|飛|玉|と|馬|龍)|同(?:成香|成桂|成銀))` +
	`(?:成?\([1-9][1-9]\)|打)` +
	`(?: +\( *[0-9]+:[0-9]{2}/[0-9]{2}:[0-9]{2}:[0-9]{2}\))?` +
	`|投了|詰み|千日手|反則勝ち|反則負け|入玉勝ち|持将棋|中断)$`)

// randomGame plays up to plies random legal moves from the start, preferring
// captures (so that hands fill, drops come and pieces reach the far camp).
func randomGame(t *testing.T, r *rand.Rand, plies int) *game {
	t.Helper()
	g := gameFrom(t, StartSFEN)
	for g.result == nil && g.ply() < plies {
		m := randomMove(r, &g.pos, g.pos.legalMoves(nil))
		if err := g.play(g.pos.side, sdk.Move(m.USI())); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// TestKIFMoveGrammar exports many random games as KIF: every move line
// matches what KIF writers emit, and the record reads back to the same game.
func TestKIFMoveGrammar(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 73))
	declined := 0
	for i := 0; i < 80; i++ {
		g := randomGame(t, r, 60+r.IntN(200))
		if i%4 == 0 && g.result == nil {
			if err := g.play(g.pos.side, sdk.Resign); err != nil {
				t.Fatal(err)
			}
		}
		for j, rec := range g.records {
			p := g.history[j]
			if rec.m != 0 && !rec.m.isDrop() && !rec.m.promotes() {
				if k := kindOf(p.b[rec.m.from()]); canPromote(k) && (zone[p.side][rec.m.from()] || zone[p.side][rec.m.to()]) {
					declined++
				}
			}
		}
		text := g.exportKIF()
		_, body, ok := strings.Cut(text, "手数----指手---------消費時間--\n")
		if !ok {
			t.Fatalf("game %d: no move section:\n%s", i, text)
		}
		for _, line := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
			if strings.HasPrefix(line, "まで") {
				break
			}
			if !kifMoveLine.MatchString(line) {
				t.Errorf("game %d: %q is not a KIF move line", i, line)
			}
		}
		st, _, err := Variant{}.Import(FormatKIF, text)
		if err != nil {
			t.Fatalf("game %d: import of its own KIF: %v\n%s", i, err, text)
		}
		if again, err := (Variant{}).Export(st, FormatKIF); err != nil || again != text {
			t.Errorf("game %d: KIF round trip gave (%v)\n%s\nwant\n%s", i, err, again, text)
		}
	}
	// The test means something only if moves that could promote and did
	// not were written.
	if declined < 50 {
		t.Errorf("only %d declined promotions in the random games", declined)
	}
}

// TestKIFReadsNoPromotion: records written before 不成 was dropped, or by
// KI2-minded writers, still read.
func TestKIFReadsNoPromotion(t *testing.T) {
	kif := "手合割：平手\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角不成(88)\n   4 同　銀(31)\n"
	_, v, err := Variant{}.Import(FormatKIF, kif)
	if err != nil {
		t.Fatal(err)
	}
	if want := "lnsgkg1nl/1r5s1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/7R1/LNSGKGSNL b Bb 5"; v.Position != want {
		t.Errorf("position %q, want %q", v.Position, want)
	}
}
