package rules

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestSFENErrors(t *testing.T) {
	tests := []struct {
		sfen string
		code string
	}{
		{"", CodeSFENFields},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -  1", CodeSFENFields},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1 b - 1", CodeSFENBoard},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN b - 1", CodeSFENBoard},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNLL b - 1", CodeSFENBoard},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNX b - 1", CodeSFENBoard},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNS+GKGSNL b - 1", CodeSFENBoard},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN+ b - 1", CodeSFENBoard},
		{"lnsgkgsnl/1r5b1/ppppppppp/45/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", CodeSFENBoard},
		{StartSFEN[:len(StartSFEN)-6] + " x - 1", CodeSFENSide},
		{strings.Replace(StartSFEN, " - ", " 0P ", 1), CodeSFENHand},
		{strings.Replace(StartSFEN, " - ", " K ", 1), CodeSFENHand},
		{strings.Replace(StartSFEN, " - ", " PP ", 1), CodeSFENHand},
		{strings.Replace(StartSFEN, " - ", " 2 ", 1), CodeSFENHand},
		{strings.Replace(StartSFEN, " - ", "  ", 1), CodeSFENHand},
		{strings.Replace(StartSFEN, " 1", " 0", 1), CodeSFENMoveNum},
		{strings.Replace(StartSFEN, " 1", " -3", 1), CodeSFENMoveNum},
		{strings.Replace(StartSFEN, " 1", " 01", 1), CodeSFENMoveNum},
		{strings.Replace(StartSFEN, " 1", " x", 1), CodeSFENMoveNum},
		// Well-formed but impossible.
		{strings.Replace(StartSFEN, " - ", " P ", 1), CodeIllegalPos},                         // 19 pawns
		{"4k4/9/9/9/9/9/9/9/4K4 b 3R 1", CodeIllegalPos},                                      // 3 rooks
		{"4k4/9/9/9/9/9/9/9/K3K4 b - 1", CodeIllegalPos},                                      // two kings
		{"P3k4/9/9/9/9/9/9/9/4K4 b - 1", CodeIllegalPos},                                      // dead pawn
		{"4k4/N8/9/9/9/9/9/9/4K4 b - 1", CodeIllegalPos},                                      // dead knight
		{"4k4/9/9/9/9/9/9/9/4K3l w - 1", CodeIllegalPos},                                      // dead Gote lance
		{"4k4/9/9/P8/P8/9/9/9/4K4 b - 1", CodeIllegalPos},                                     // nifu
		{"4k3R/9/9/9/9/9/9/9/4K4 b - 1", CodeIllegalPos},                                      // Gote in check, Sente to move
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 1", CodeSFENFields}, // five fields
	}
	for _, tc := range tests {
		_, err := ParseSFEN(tc.sfen)
		re, ok := sdk.AsRuleError(err)
		if !ok || re.Code != tc.code {
			t.Errorf("ParseSFEN(%q) = %v, want code %s", tc.sfen, err, tc.code)
		}
	}
}

func TestSFENRoundTrip(t *testing.T) {
	for _, s := range []string{
		StartSFEN,
		"l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1", // hands in the canonical order
		"R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
		"4k4/9/9/9/9/9/9/9/9 b 16P 1",
		"4k4/9/9/9/9/9/9/9/4K4 w - 120",
	} {
		p, err := ParseSFEN(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.SFEN(); got != s {
			t.Errorf("SFEN() = %q, want %q", got, s)
		}
	}
	// The move number is optional on input.
	if p, err := ParseSFEN(StartSFEN[:len(StartSFEN)-2]); err != nil || p.SFEN() != StartSFEN {
		t.Errorf("three fields: %v %v", p.SFEN(), err)
	}
}

func TestMoveNames(t *testing.T) {
	tests := []struct {
		sfen     string
		moves    []string // played first
		move     string
		japanese string
		western  string
	}{
		{StartSFEN, nil, "7g7f", "▲７六歩", "P-7f"},
		{StartSFEN, []string{"7g7f"}, "3c3d", "△３四歩", "P-3d"},
		{StartSFEN, []string{"7g7f", "3c3d"}, "8h2b+", "▲２二角成", "Bx2b+"},
		{StartSFEN, []string{"7g7f", "3c3d"}, "8h2b", "▲２二角不成", "Bx2b="},
		{StartSFEN, []string{"7g7f", "3c3d", "8h2b+"}, "3a2b", "△同　銀", "Sx2b"},
		{StartSFEN, []string{"7g7f", "3c3d", "8h2b+", "3a2b"}, "B*4e", "▲４五角打", "B*4e"},
		{StartSFEN, nil, "6i5h", "▲５八金左", "G6i-5h"},
		{StartSFEN, nil, "4i5h", "▲５八金右", "G4i-5h"},
		{StartSFEN, nil, "6i7h", "▲７八金", "G-7h"},
		{"4k4/9/9/9/9/9/9/9/3GGK3 b - 1", nil, "5i5h", "▲５八金直", "G5i-5h"},
		{"4k4/9/9/9/9/9/9/9/3GGK3 b - 1", nil, "6i5h", "▲５八金左", "G6i-5h"},
		{"4k4/9/9/9/9/9/9/3G5/4GK3 b - 1", nil, "6h5h", "▲５八金寄", "G6h-5h"},
		{"4k4/9/9/9/9/9/9/3G5/4GK3 b - 1", nil, "5i5h", "▲５八金上", "G5i-5h"},
		{"4k4/9/9/9/5+P3/9/9/9/4K4 b - 1", nil, "4e4d", "▲４四と", "+P-4d"},
		{"4k4/9/4+P4/9/9/9/9/9/4K4 b - 1", nil, "5c4b", "▲４二と", "+P-4b"},
		{"4k4/9/9/9/9/9/9/9/4K4 b S 1", nil, "S*5e", "▲５五銀打", "S*5e"},
	}
	for _, tc := range tests {
		g := gameFrom(t, tc.sfen, tc.moves...)
		found := false
		for _, m := range g.view().Legal {
			if string(m.Move) == tc.move {
				found = true
				if m.Text != tc.japanese || m.Alt != tc.western {
					t.Errorf("%s after %v: %q %q, want %q %q", tc.move, tc.moves, m.Text, m.Alt, tc.japanese, tc.western)
				}
			}
		}
		if !found {
			t.Errorf("%s is not listed after %v", tc.move, tc.moves)
		}
	}
}

// sampleGame plays a short game with a capture, a promotion, a declined
// promotion, 同, a drop, and a resignation.
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
		for _, end := range []string{"", "resign"} {
			g := gameFrom(t, start, moves...)
			if end != "" {
				if err := g.play(g.pos.side, sdk.Resign); err != nil {
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
				h, err := decodeState(s)
				if err != nil {
					t.Fatal(err)
				}
				want := g
				if format == FormatSFENUSI && end != "" {
					want = gameFrom(t, start, moves...) // USI positions carry no resignation
				}
				if !sameGame(h, want, format != FormatCSA) {
					t.Errorf("%s round trip from %s changed the game:\n%s\ngot  %v %v\nwant %v %v",
						format, start, text, h.start.SFEN(), movesOf(h), want.start.SFEN(), movesOf(want))
				}
			}
		}
	}
}

func sameGame(a, b *game, moveNum bool) bool {
	if !a.start.sameAs(&b.start) || (moveNum && a.start.moveNum != b.start.moveNum) {
		return false
	}
	if strings.Join(movesOf(a), " ") != strings.Join(movesOf(b), " ") {
		return false
	}
	return (a.result == nil) == (b.result == nil)
}

func movesOf(g *game) []string {
	var out []string
	for _, r := range g.records {
		out = append(out, string(r.move))
	}
	return out
}

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

func TestCSAExport(t *testing.T) {
	g := gameFrom(t, StartSFEN, sampleMoves...)
	if err := g.play(g.pos.side, sdk.Resign); err != nil {
		t.Fatal(err)
	}
	text := g.exportCSA()
	for _, want := range []string{"V2.2\n", "PI\n+\n", "+7776FU\n-3334FU\n+8822UM\n-3122GI\n+0045KA\n", "+3443KA\n", "%TORYO\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("CSA lacks %q:\n%s", want, text)
		}
	}
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
		g, _ := decodeState(s)
		if got := strings.Join(movesOf(g), " "); got != want {
			t.Errorf("%s moves %q, want %q", format, got, want)
		}
		if v.History[5].Text != "△同　歩" {
			t.Errorf("%s: move 6 named %q", format, v.History[5].Text)
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
