package rules

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// readBack is what the independent reader (testdata/tsshogi/read.mjs) makes
// of one record.
type readBack struct {
	Error  string `json:"error"`
	SFEN   string `json:"sfen"`
	Plies  int    `json:"plies"`
	End    string `json:"end"`
	Winner string `json:"winner"`
}

// tsshogiRead reads records with tsshogi under Node. Without Node or the
// reader's packages (make node, or npm ci in testdata/tsshogi) it skips,
// unless BANMEN_REQUIRE_NODE=1 (CI), where it fails.
func tsshogiRead(t *testing.T, records []map[string]string) []readBack {
	t.Helper()
	need := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("BANMEN_REQUIRE_NODE") == "1" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		need("no node on PATH: %v", err)
	}
	dir := filepath.Join("testdata", "tsshogi")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "tsshogi")); err != nil {
		need("tsshogi is not installed (make node, or npm ci in %s): %v", dir, err)
	}
	in, err := json.Marshal(records)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "read.mjs")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(string(in))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("read.mjs: %v", err)
	}
	var got []readBack
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("read.mjs said %s: %v", out, err)
	}
	if len(got) != len(records) {
		t.Fatalf("read.mjs read %d records of %d", len(got), len(records))
	}
	return got
}

// TestExportsNameTheWinnerToTsshogi writes resignations and abandonments
// (a claimed win: sdk.Abandon) by either side, on its own turn and on the
// opponent's, from positions with either side to move, in every notation,
// and reads each record back with tsshogi: the position must be the game's
// and the winner the one the game names; and with Import: the same game,
// ended the same way. A USI position carries no result: it must name none.
func TestExportsNameTheWinnerToTsshogi(t *testing.T) {
	type game1 struct {
		name string
		g    *game
	}
	var games []game1
	const other = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 40"
	p, _ := ParseSFEN(other)
	first := p.legalMoves(nil)[0]
	for _, start := range []struct {
		sfen  string
		moves []string
	}{
		{StartSFEN, sampleMoves},      // Sente to move
		{StartSFEN, sampleMoves[:11]}, // Gote to move
		{StartSFEN, nil},              // no move yet
		{other, nil},                  // Gote to move, not from the start
		{other, []string{first.USI()}},
	} {
		for _, end := range []sdk.Move{sdk.Resign, sdk.Abandon} {
			for _, loser := range []int{sente, gote} {
				g := gameFrom(t, start.sfen, start.moves...)
				turn := "in turn"
				if g.pos.side != loser {
					turn = "out of turn"
				}
				if err := g.play(loser, end); err != nil {
					t.Fatal(err)
				}
				games = append(games, game1{colorName[loser] + " " + string(end) + "s " + turn + " after " + start.sfen + " " + strings.Join(start.moves, " "), g})
			}
		}
	}
	formats := map[string]string{FormatCSA: "csa", FormatKIF: "kif", FormatSFENUSI: "usi"}
	var records []map[string]string
	var which []string
	for _, c := range games {
		for _, f := range []string{FormatCSA, FormatKIF, FormatSFENUSI} {
			text, err := Variant{}.Export(c.g.encode(), f)
			if err != nil {
				t.Fatal(err)
			}
			records = append(records, map[string]string{"format": formats[f], "text": text})
			which = append(which, f)
		}
	}
	got := tsshogiRead(t, records)
	for i, r := range got {
		c := games[i/3]
		f := which[i]
		text := records[i]["text"]
		if r.Error != "" {
			t.Errorf("%s, %s: tsshogi cannot read it: %s\n%s", c.name, f, r.Error, text)
			continue
		}
		// Board, side to move and hands; tsshogi numbers moves its own way.
		want := strings.Join(strings.Fields(c.g.pos.SFEN())[:3], " ")
		if have := strings.Join(strings.Fields(r.SFEN)[:3], " "); have != want {
			t.Errorf("%s, %s: tsshogi reads the position %s, want %s\n%s", c.name, f, have, want, text)
		}
		wantWinner := strings.ToLower(colorName[c.g.result.Winners[0]])
		if f == FormatSFENUSI {
			wantWinner = ""
		}
		if r.Winner != wantWinner {
			t.Errorf("%s, %s: tsshogi reads the winner as %q (%s), want %q\n%s", c.name, f, r.Winner, r.End, wantWinner, text)
		}
		if f == FormatSFENUSI {
			continue
		}
		_, view, err := Variant{}.Import(f, text)
		if err != nil {
			t.Errorf("%s, %s: Import: %v\n%s", c.name, f, err, text)
			continue
		}
		if view.Result == nil || !slices.Equal(view.Result.Winners, c.g.result.Winners) || view.Result.Reason != c.g.result.Reason {
			t.Errorf("%s, %s: Import reads the result %+v, want %+v\n%s", c.name, f, view.Result, *c.g.result, text)
		}
	}
}
