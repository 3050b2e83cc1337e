package rules

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestRecordRoundTrip(t *testing.T) {
	g := startGame(t, StartText)
	playAll(t, g, "S:5g5f", "W:7e6e", "N:5c5d", "E:3e4e")
	text := g.record()
	want := "# Yonin Shogi (Banmen): initial position, then one move per line\n" + StartText + "\nS:5g5f\nW:7e6e\nN:5c5d\nE:3e4e\n"
	if text != want {
		t.Fatalf("record\n%s\nwant\n%s", text, want)
	}
	h, err := parseRecord("# a comment\n\n" + StartText + "\nS:5g5f W:7e6e\n  N:5c5d\tE:3e4e\n")
	if err != nil || h.pos.Text() != g.pos.Text() {
		t.Fatalf("reading it back: %v", err)
	}
	for _, c := range []struct{ name, text, code string }{
		{"empty", "", sdk.CodeBadNotation},
		{"comments only", "# nothing\n", sdk.CodeBadNotation},
		{"bad position", "9/9 s - - singles,two_mates,mater 1", sdk.CodeBadPosition},
		{"bad move text", StartText + "\nS:5g5f W:zz", sdk.CodeBadNotation},
		{"illegal move", StartText + "\nS:5g5e", sdk.CodeBadNotation},
		{"wrong seat", StartText + "\nW:7e6e", sdk.CodeBadNotation},
		{"ended position", layout("5i=Ks 9e=~Kw 5a=Kn 1e=~Ke", "- - ws,es "+singles), sdk.CodeBadPosition},
	} {
		_, err := parseRecord(c.text)
		if re, ok := sdk.AsRuleError(err); !ok || re.Code != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}

func FuzzRecord(f *testing.F) {
	st, _, _ := Variant{}.Start(nil)
	for range 8 {
		v, _ := Variant{}.View(st)
		st, _, _ = Variant{}.Play(st, v.ToMove[0], v.Legal[len(v.Legal)/2].Move)
	}
	rec, _ := Variant{}.Export(st, formatID)
	f.Add(rec)
	f.Add(StartText)
	f.Fuzz(func(t *testing.T, text string) {
		st, v, err := Variant{}.Import(formatID, text)
		if err != nil {
			if _, ok := sdk.AsRuleError(err); !ok {
				t.Fatalf("not a RuleError: %v", err)
			}
			return
		}
		out, err := Variant{}.Export(st, formatID)
		if err != nil {
			t.Fatal(err)
		}
		_, v2, err := Variant{}.Import(formatID, out)
		if err != nil || v2.Position != v.Position || v2.Ply != v.Ply {
			t.Fatalf("export of an import does not import back: %v", err)
		}
	})
}

// TestExportIn: the record's header is in the reader's language, the record
// reads back as the same game, and an unknown language is English.
func TestExportIn(t *testing.T) {
	v := Variant{}
	st, _, err := v.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := v.Export(st, formatID)
	if err != nil {
		t.Fatal(err)
	}
	ja, err := v.ExportIn(st, formatID, "ja")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ja, "# 四人将棋") {
		t.Errorf("the Japanese record starts %q", strings.SplitN(ja, "\n", 2)[0])
	}
	if strings.SplitN(ja, "\n", 2)[1] != strings.SplitN(plain, "\n", 2)[1] {
		t.Error("the Japanese record's position and moves differ from Export's")
	}
	if _, _, err := v.Import(formatID, ja); err != nil {
		t.Errorf("the Japanese record does not read back: %v", err)
	}
	if xx, _ := v.ExportIn(st, formatID, "xx"); xx != plain {
		t.Errorf("an unknown language gave\n%s\nwant English\n%s", xx, plain)
	}
}

// TestRecordCap: a record of more moves than sdk.MaxRecordMoves is refused
// before any is replayed (these are not even legal).
func TestRecordCap(t *testing.T) {
	text := StartText + "\n" + strings.Repeat("S:5g5e ", sdk.MaxRecordMoves+1)
	_, err := parseRecord(text)
	if re, ok := sdk.AsRuleError(err); !ok || re.Code != sdk.CodeBadNotation || !strings.Contains(re.Message, "more than") {
		t.Fatalf("a record over the cap: %v", err)
	}
}

// TestRecordWithPlayers: the record names the players who gave a name, a
// comment line each under its header, the seat named in the reader's
// language, whatever the name holds; it still imports as the same game.
func TestRecordWithPlayers(t *testing.T) {
	g := startGame(t, StartText)
	playAll(t, g, "S:5g5f", "W:7e6e")
	st := g.encodeState()
	text, err := Variant{}.ExportWith(st, formatID, sdk.ExportOptions{Lang: "ja", Players: []string{"", "<i>Hanako</i>\nS:5f5e", "", "Jiro"}})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text, "\n")
	if len(lines) < 4 || lines[1] != "# 西: <i>Hanako</i>S:5f5e" || lines[2] != "# 東: Jiro" || lines[3] != StartText {
		t.Errorf("record with names:\n%s", text)
	}
	_, v, err := Variant{}.Import(formatID, text)
	if err != nil || v.Ply != 2 || v.Position != g.pos.Text() {
		t.Errorf("Import of the record with names: ply %d, %v", v.Ply, err)
	}
	if got, _ := (Variant{}).ExportWith(st, formatID, sdk.ExportOptions{}); got != g.record() {
		t.Errorf("without names the record is\n%s\nwant\n%s", got, g.record())
	}
}
