package rules

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// The fuzz targets feed hostile text to every parser. Each asserts that
// nothing panics, that every rejection is a *sdk.RuleError, and that what
// parses prints to text that parses back to the same thing.

func mustRuleError(t *testing.T, what string, err error) {
	t.Helper()
	if _, ok := sdk.AsRuleError(err); !ok {
		t.Fatalf("%s: error %v is not a *sdk.RuleError", what, err)
	}
}

func FuzzSFEN(f *testing.F) {
	for _, tc := range perftCases {
		f.Add(tc.sfen)
	}
	for _, s := range []string{"", "9/9/9/9/9/9/9/9/9 b - 1", "4k4/9/9/9/9/9/9/9/4K4 w 2P3p 99", "+P8/9/9/9/9/9/9/9/9 b - 1", "k8/9/9/9/9/9/9/9/8K b 18P 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseSFEN(s)
		if err != nil {
			mustRuleError(t, "ParseSFEN", err)
			return
		}
		out := p.SFEN()
		q, err := ParseSFEN(out)
		if err != nil {
			t.Fatalf("printed %q from %q does not parse: %v", out, s, err)
		}
		if q.SFEN() != out || !q.sameAs(&p) {
			t.Fatalf("SFEN round trip changed %q to %q", out, q.SFEN())
		}
		// The generator and the counter must agree on any valid position.
		if n, want := p.countLegal(), len(p.legalMoves(nil)); n != want {
			t.Fatalf("%s: countLegal %d, generated %d", out, n, want)
		}
	})
}

func FuzzUSI(f *testing.F) {
	for _, s := range []string{"7g7f", "8h2b+", "P*5e", "win", "resign", "1a9i", "K*5e", "7g7f++", "", "p*5e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseUSI(s)
		if err != nil {
			mustRuleError(t, "ParseUSI", err)
			return
		}
		out := m.USI()
		if out != s {
			t.Fatalf("ParseUSI(%q).USI() = %q", s, out)
		}
		m2, err := ParseUSI(out)
		if err != nil || m2 != m {
			t.Fatalf("USI round trip of %q: %v %v", s, m2, err)
		}
		// Whatever parses may be offered to a game without harm.
		g := gameFrom(t, StartSFEN)
		if err := g.play(g.pos.side, sdk.Move(s)); err != nil {
			mustRuleError(t, "play", err)
		}
	})
}

// roundTrip imports text in format, exports the game, imports that again and
// checks that the game did not change.
func roundTrip(t *testing.T, format, text string) {
	s, _, err := Variant{}.Import(format, text)
	if err != nil {
		mustRuleError(t, "Import", err)
		return
	}
	g, err := replayState(s)
	if err != nil {
		t.Fatalf("Import made a bad state: %v", err)
	}
	out, err := Variant{}.Export(s, format)
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	s2, _, err := Variant{}.Import(format, out)
	if err != nil {
		t.Fatalf("exported text does not import: %v\n%s", err, out)
	}
	h, _ := replayState(s2)
	if !sameGame(g, h, format != FormatCSA) {
		t.Fatalf("round trip changed the game:\n%s", out)
	}
	out2, _ := Variant{}.Export(s2, format)
	if out2 != out {
		t.Fatalf("export is not stable:\n%s\n---\n%s", out, out2)
	}
}

func exportedSeeds(format string) []string {
	var out []string
	g := gameFromSeed(StartSFEN, sampleMoves)
	out = append(out, g.exportFormat(format))
	g.play(g.pos.side, sdk.Resign)
	out = append(out, g.exportFormat(format))
	g = gameFromSeed("8k/9/R8/9/9/9/9/9/4K4 b - 1", strings.Fields("9c9a 1a1b 9a9b 1b1a 9b9a 1a1b 9a9b 1b1a 9b9a 1a1b 9a9b 1b1a 9b9a"))
	out = append(out, g.exportFormat(format))
	g = gameFromSeed("+P+P+P+P5/RB2K4/+P+P+P+P5/9/9/9/9/9/8k b RB 1", []string{"win"})
	out = append(out, g.exportFormat(format))
	return out
}

func gameFromSeed(sfen string, moves []string) *game {
	p, _ := ParseSFEN(sfen)
	g := newGame(p)
	for _, m := range moves {
		g.play(g.pos.side, sdk.Move(m))
	}
	return g
}

func (g *game) exportFormat(format string) string {
	s, _ := Variant{}.Export(g.encode(), format)
	return s
}

func FuzzSFENUSI(f *testing.F) {
	for _, s := range exportedSeeds(FormatSFENUSI) {
		f.Add(s)
	}
	f.Add("startpos moves 7g7f 3c3d")
	f.Add("position sfen 4k4/9/9/9/9/9/9/9/4K4 b P 1 moves P*5b")
	f.Fuzz(func(t *testing.T, s string) { roundTrip(t, FormatSFENUSI, s) })
}

func FuzzKIF(f *testing.F) {
	for _, s := range exportedSeeds(FormatKIF) {
		f.Add(s)
	}
	f.Add("手合割：平手\n   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(88)\n   4 同　銀(31)\n   5 ５五角打\n")
	f.Fuzz(func(t *testing.T, s string) { roundTrip(t, FormatKIF, s) })
}

func FuzzCSA(f *testing.F) {
	for _, s := range exportedSeeds(FormatCSA) {
		f.Add(s)
	}
	f.Add("PI\n+\n+7776FU\n-3334FU\n+8822UM\n-3122GI\n+0055KA\n%TORYO\n")
	f.Add("P1-OU\nP+00AL\n-\n")
	f.Fuzz(func(t *testing.T, s string) { roundTrip(t, FormatCSA, s) })
}

func FuzzState(f *testing.F) {
	st, _, _ := Variant{}.Start(nil)
	f.Add([]byte(st))
	for _, format := range []string{FormatKIF} {
		for _, text := range exportedSeeds(format) {
			if s, _, err := (Variant{}).Import(format, text); err == nil {
				f.Add([]byte(s))
			}
		}
	}
	f.Add([]byte("BNM\x01\x05shogi"))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := replayState(sdk.State(b))
		if err != nil {
			re, ok := sdk.AsRuleError(err)
			if !ok || re.Code != sdk.CodeBadState {
				t.Fatalf("decodeState: %v, want a bad_state RuleError", err)
			}
			return
		}
		// A state that opens is re-encoded to the same bytes.
		if again := g.encode(); string(again) != string(b) {
			t.Fatalf("re-encoding changed the state")
		}
		_ = g.view()
	})
}
