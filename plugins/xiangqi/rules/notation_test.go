package rules

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestExport(t *testing.T) {
	st, _, err := Variant{}.Import(NotationFENUCCI, "startpos moves h2e2 h9g7 h0g2")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Variant{}.Export(st, NotationFENUCCI)
	if want := "fen " + StartFEN + " moves h2e2 h9g7 h0g2"; err != nil || got != want {
		t.Errorf("fen+ucci:\n got %q\nwant %q (%v)", got, want, err)
	}
	got, err = Variant{}.Export(st, NotationWXF)
	want := "FEN: " + StartFEN + "\n1. C2.5 H8+7\n2. H2+3\nResult: *\n"
	if err != nil || got != want {
		t.Errorf("wxf:\n got %q\nwant %q (%v)", got, want, err)
	}

	// Black to move first, a finished game.
	st, _, err = Variant{}.Import(NotationFENUCCI, "fen 3k5/9/9/9/9/9/9/9/7r1/4K4 b - - 0 7 moves h1h0 e0e1 h0h1 e1e0 h1h0 e0e1 h0h1 e1e0")
	if err != nil {
		t.Fatal(err)
	}
	got, _ = Variant{}.Export(st, NotationWXF)
	want = "FEN: 3k5/9/9/9/9/9/9/9/7r1/4K4 b - - 0 7\n7. ... R8+1\n8. K5+1 R8-1\n9. K5-1 R8+1\n10. K5+1 R8-1\n11. K5-1\nResult: 1-0 perpetual check\n"
	if got != want {
		t.Errorf("wxf:\n got %q\nwant %q", got, want)
	}
	if _, err := (Variant{}).Export(st, "pgn"); !hasCode(err, sdk.CodeBadFormat) {
		t.Errorf("unknown format: %v", err)
	}
}

func TestImportFENUCCI(t *testing.T) {
	for _, text := range []string{
		"startpos",
		"position startpos",
		"startpos moves",
		StartFEN,
		"fen " + StartFEN,
		"position fen " + StartFEN,
		"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
	} {
		_, v, err := Variant{}.Import(NotationFENUCCI, text)
		if err != nil || v.Position != StartFEN {
			t.Errorf("Import(%q) = %q, %v", text, v.Position, err)
		}
	}
	for _, tc := range []struct{ text, code string }{
		{"", sdk.CodeBadNotation},
		{"startpos x", sdk.CodeBadNotation},
		{"startpos moves h2e2 h2e2", sdk.CodeBadNotation},
		{"startpos moves e2", sdk.CodeBadNotation},
		{"fen 9/9 w moves", sdk.CodeBadPosition},
	} {
		if _, _, err := (Variant{}).Import(NotationFENUCCI, tc.text); !hasCode(err, tc.code) {
			t.Errorf("Import(%q) = %v, want %s", tc.text, err, tc.code)
		}
	}
}

func TestImportWXF(t *testing.T) {
	text := "FEN: " + StartFEN + "\n1. C2.5 H8+7\n2. H2+3 R9.8\nResult: 0-1 resignation\n"
	st, v, err := Variant{}.Import(NotationWXF, text)
	if err != nil {
		t.Fatal(err)
	}
	if v.Ply != 4 || v.Result == nil || v.Result.Reason != ReasonResignation || v.Result.Winners[0] != 1 {
		t.Errorf("imported: ply %d result %+v", v.Ply, v.Result)
	}
	if out, _ := (Variant{}).Export(st, NotationWXF); out != text {
		t.Errorf("export of the import:\n got %q\nwant %q", out, text)
	}
	// No FEN line: the start; '=' and lower case accepted.
	_, v, err = Variant{}.Import(NotationWXF, "1. c2=5 h8+7")
	if err != nil || v.Ply != 2 {
		t.Errorf("bare moves: ply %d, %v", v.Ply, err)
	}
	for _, bad := range []string{"1. C2.5 K5+2", "FEN: x", "1. C2.5\nFEN: " + StartFEN, "1. Z9"} {
		if _, _, err := (Variant{}).Import(NotationWXF, bad); err == nil {
			t.Errorf("Import(%q) accepted", bad)
		} else if re, ok := sdk.AsRuleError(err); !ok || !strings.HasPrefix(re.Code, "bad_") {
			t.Errorf("Import(%q): %v", bad, err)
		}
	}
}

// TestAbandonedRecords ends games by each side leaving (sdk.Abandon, a
// claimed win), on its turn and on the other's: the WXF result line names
// the winner by its score and says who left, Import reads back the same
// ending, the State and Rewind keep it.
func TestAbandonedRecords(t *testing.T) {
	for _, moves := range [][]sdk.Move{nil, {"h2e2"}} {
		for _, loser := range []sdk.Seat{0, 1} {
			st, _, err := Variant{}.Start(nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range moves {
				if st, _, err = (Variant{}).Play(st, sdk.Seat(i%2), m); err != nil {
					t.Fatal(err)
				}
			}
			st, v, err := Variant{}.Play(st, loser, sdk.Abandon)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s leaves after %v", sideNames[loser], moves)
			if v.Status != sdk.Over || v.Result.Reason != sdk.ReasonAbandoned || !slices.Equal(v.Result.Winners, []sdk.Seat{1 - loser}) ||
				v.History[len(v.History)-1].Move != sdk.Abandon {
				t.Fatalf("%s: %+v, history %+v", name, v.Result, v.History)
			}
			text, err := Variant{}.Export(st, NotationWXF)
			if err != nil {
				t.Fatal(err)
			}
			want := map[sdk.Seat]string{0: "Result: 0-1 Red left the game\n", 1: "Result: 1-0 Black left the game\n"}[loser]
			if !strings.HasSuffix(text, want) {
				t.Errorf("%s: WXF ends %q, want %q", name, text, want)
			}
			ist, iv, err := Variant{}.Import(NotationWXF, text)
			if err != nil {
				t.Fatalf("%s: Import: %v\n%s", name, err, text)
			}
			if !reflect.DeepEqual(iv.Result, v.Result) || iv.Ply != v.Ply {
				t.Errorf("%s: Import reads %+v at ply %d, want %+v at %d", name, iv.Result, iv.Ply, v.Result, v.Ply)
			}
			if out, _ := (Variant{}).Export(ist, NotationWXF); out != text {
				t.Errorf("%s: export of the import:\n got %q\nwant %q", name, out, text)
			}
			// A State not from this process's cache replays the ending.
			if g, err := replayState(st); err != nil || g.result.Reason != sdk.ReasonAbandoned || !g.abandoned {
				t.Errorf("%s: replayed state: %+v, %v", name, g, err)
			}
			_, rv, err := Variant{}.Rewind(st, len(v.History))
			if err != nil || !reflect.DeepEqual(rv.Result, v.Result) {
				t.Errorf("%s: Rewind to the end: %+v, %v", name, rv.Result, err)
			}
		}
	}
}

// TestExportWithPlayers: the wxf record names the players who gave a name,
// on lines of their own whatever the name holds, and still imports as the
// same game; FEN + UCCI has no place for names.
func TestExportWithPlayers(t *testing.T) {
	st, _, err := Variant{}.Import(NotationFENUCCI, "startpos moves h2e2 h9g7")
	if err != nil {
		t.Fatal(err)
	}
	text, err := Variant{}.ExportWith(st, NotationWXF, sdk.ExportOptions{Players: []string{"<b>Li</b>\nResult: 0-1 resignation", ""}})
	if err != nil {
		t.Fatal(err)
	}
	want := "FEN: " + StartFEN + "\nRed: <b>Li</b>Result: 0-1 resignation\n1. C2.5 H8+7\nResult: *\n"
	if text != want {
		t.Errorf("wxf with names:\n got %q\nwant %q", text, want)
	}
	_, v, err := Variant{}.Import(NotationWXF, text)
	if err != nil || v.Ply != 2 || v.Result != nil {
		t.Errorf("Import of the record with names: ply %d, result %+v, %v", v.Ply, v.Result, err)
	}
	plain, _ := Variant{}.Export(st, NotationFENUCCI)
	if got, _ := (Variant{}).ExportWith(st, NotationFENUCCI, sdk.ExportOptions{Players: []string{"Li", "Wang"}}); got != plain {
		t.Errorf("fen+ucci with names %q, want %q", got, plain)
	}
}
