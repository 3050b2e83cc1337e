package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// sampleMoves is a short game with a capture, a promotion, a declined
// promotion, 同 and a drop.
var sampleMoves = []string{"7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "8c8d", "4e3d", "2b3c", "3d4c", "4a4b", "4c2a", "8d8e"}

func TestNotationRoundTrip(t *testing.T) {
	starts := []string{StartSFEN, "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 40"}
	for _, start := range starts {
		var moves []string
		if start == StartSFEN {
			moves = sampleMoves
		} else {
			p, _ := ParseSFEN(start)
			for i := 0; i < 6; i++ { // the first legal move each time
				m := p.legalMoves(nil)[i*7%len(p.legalMoves(nil))]
				moves = append(moves, m.USI())
				p.do(m)
			}
		}
		for _, end := range []string{"", "resign", "resign out of turn"} {
			g := gameFrom(t, start, moves...)
			switch end {
			case "resign":
				if err := g.play(g.pos.side, sdk.Resign); err != nil {
					t.Fatal(err)
				}
			case "resign out of turn":
				if err := g.play(g.pos.side^1, sdk.Resign); err != nil {
					t.Fatal(err)
				}
			}
			for _, format := range []string{FormatSFENUSI, FormatKIF, FormatCSA} {
				text, err := Variant{}.Export(g.encode(), format)
				if err != nil {
					t.Fatal(err)
				}
				s, _, err := Variant{}.Import(format, text)
				if err != nil {
					t.Fatalf("%s import of\n%s\n: %v", format, text, err)
				}
				h, err := replayState(s)
				if err != nil {
					t.Fatal(err)
				}
				want := g
				if format == FormatSFENUSI && end != "" {
					want = gameFrom(t, start, moves...) // USI positions carry no resignation
				}
				if !sameGame(h, want, format != FormatCSA) {
					t.Errorf("%s round trip from %s changed the game:\n%s\ngot  %v %v\nwant %v %v",
						format, start, text, h.start().SFEN(), movesOf(h), want.start().SFEN(), movesOf(want))
				}
			}
		}
	}
}

func sameGame(a, b *game, moveNum bool) bool {
	if !a.start().sameAs(b.start()) || (moveNum && a.start().moveNum != b.start().moveNum) {
		return false
	}
	if strings.Join(movesOf(a), " ") != strings.Join(movesOf(b), " ") {
		return false
	}
	if a.result == nil || b.result == nil {
		return a.result == nil && b.result == nil
	}
	return fmt.Sprint(a.result.Winners) == fmt.Sprint(b.result.Winners)
}

func movesOf(g *game) []string {
	var out []string
	for _, h := range g.hist {
		out = append(out, string(h.Move))
	}
	return out
}

// TestImportForeign reads records written by other programs.
func TestImportForeign(t *testing.T) {
	kif := "\ufeff# ---- Kifu for Windows V7 V7.70 棋譜ファイル ----\r\n" +
		"開始日時：2024/01/02 10:00:00\r\n棋戦：練習\r\n手合割：平手\r\n先手：A\r\n後手：B\r\n" +
		"手数----指手---------消費時間--\r\n" +
		"*コメント\r\n" +
		"   1 ２六歩(27)   ( 0:01/00:00:01)\r\n" +
		"   2 ８四歩(83)   ( 0:02/00:00:02)\r\n" +
		"   3 ２五歩(26)   ( 0:01/00:00:02)\r\n" +
		"   4 ８五歩(84)   ( 0:01/00:00:03)\r\n" +
		"   5 ２四歩(25)   ( 0:01/00:00:03)\r\n" +
		"   6 同　歩(23)   ( 0:01/00:00:04)\r\n" +
		"   7 同　飛(28)   ( 0:01/00:00:04)\r\n" +
		"   8 中断\r\n" +
		"まで7手で中断\r\n" +
		"\r\n変化：7手\r\n   7 ３八銀(39)\r\n"
	csa := "'CSA encoding=UTF-8\nV2.2\nN+A\nN-B\n$EVENT:test\nP1-KY-KE-GI-KI-OU-KI-GI-KE-KY\n" +
		"P2 * -HI *  *  *  *  * -KA * \nP3-FU-FU-FU-FU-FU-FU-FU-FU-FU\nP4 *  *  *  *  *  *  *  *  * \n" +
		"P5 *  *  *  *  *  *  *  *  * \nP6 *  *  *  *  *  *  *  *  * \nP7+FU+FU+FU+FU+FU+FU+FU+FU+FU\n" +
		"P8 * +KA *  *  *  *  * +HI * \nP9+KY+KE+GI+KI+OU+KI+GI+KE+KY\n+\n+2726FU,T1\n-8384FU\nT3\n+2625FU\n-8485FU\n+2524FU\n-2324FU\n+2824HI\n%CHUDAN\n"
	want := "2g2f 8c8d 2f2e 8d8e 2e2d 2c2d 2h2d"
	for format, text := range map[string]string{FormatKIF: kif, FormatCSA: csa} {
		s, v, err := Variant{}.Import(format, text)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		g, _ := replayState(s)
		if got := strings.Join(movesOf(g), " "); got != want {
			t.Errorf("%s moves %q, want %q", format, got, want)
		}
		if v.History[5].Text != "△同　歩" {
			t.Errorf("%s: move 6 named %q", format, v.History[5].Text)
		}
	}
}

func TestImportErrors(t *testing.T) {
	tests := []struct{ format, text, code string }{
		{FormatSFENUSI, "", CodeSFENFields},
		{FormatSFENUSI, "startpos moves 7g7e", sdk.CodeBadNotation},
		{FormatSFENUSI, "startpos 7g7f", sdk.CodeBadNotation},
		{FormatSFENUSI, "sfen 9/9 b - 1", CodeSFENBoard},
		{FormatKIF, "手合割：平手\n   1 ７五歩(77)\n", sdk.CodeBadNotation},
		{FormatKIF, "手合割：香落ち\n", sdk.CodeUnsupported},
		{FormatKIF, "hello", sdk.CodeBadNotation},
		{FormatCSA, "PI\n+\n+7775FU\n", sdk.CodeBadNotation},
		{FormatCSA, "+7776FU\n", sdk.CodeBadNotation},
		{"pgn", "1. e4", sdk.CodeBadFormat},
	}
	for _, tc := range tests {
		_, _, err := Variant{}.Import(tc.format, tc.text)
		if re, ok := sdk.AsRuleError(err); !ok || re.Code != tc.code {
			t.Errorf("Import(%s, %q) = %v, want code %s", tc.format, tc.text, err, tc.code)
		}
	}
}

func TestImportSFENUSIForms(t *testing.T) {
	for _, text := range []string{
		"sfen " + StartSFEN + " moves 7g7f 3c3d",
		"position sfen " + StartSFEN + " moves 7g7f 3c3d",
		"position startpos moves 7g7f 3c3d",
		"startpos moves 7g7f 3c3d",
		StartSFEN + " moves 7g7f 3c3d",
	} {
		s, v, err := Variant{}.Import(FormatSFENUSI, text)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if v.Ply != 2 {
			t.Errorf("%q: ply %d", text, v.Ply)
		}
		out, _ := Variant{}.Export(s, FormatSFENUSI)
		if want := "sfen " + StartSFEN + " moves 7g7f 3c3d"; out != want {
			t.Errorf("export %q, want %q", out, want)
		}
	}
}
