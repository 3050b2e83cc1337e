package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// kingCycle is a closed walk of a king over four ranks (from rank first on,
// USI letters), visiting every cell once, or every cell but one when short:
// along the ranks in a snake over files 8 to 1, back along file 9.
func kingCycle(first byte, short bool) []string {
	var cells []string
	cell := func(file int, rank int) string { return fmt.Sprintf("%d%c", file, first+byte(rank)) }
	cells = append(cells, cell(9, 0))
	for r := 0; r < 4; r++ {
		for i := 0; i < 8; i++ {
			f := 8 - i
			if r%2 == 1 {
				f = 1 + i
			}
			cells = append(cells, cell(f, r))
		}
	}
	if !short {
		cells = append(cells, cell(9, 3))
	}
	cells = append(cells, cell(9, 2), cell(9, 1))
	return cells
}

// bareKingsWalk is a sfen+usi record of two bare kings walking their cycles
// (36 and 35 cells, so the start position comes back every 2,520 plies):
// the record that made one import cost a quarter of a second of plugin CPU
// when repetition was counted by scanning the game.
func bareKingsWalk(plies int) string {
	s, g := kingCycle('f', false), kingCycle('a', true)
	var b strings.Builder
	b.WriteString("sfen " + "k8/9/9/9/9/K8/9/9/9 b - 1 moves")
	for i := 0; i < plies; i++ {
		c, k := s, i/2
		if i%2 == 1 {
			c = g
		}
		b.WriteString(" " + c[k%len(c)] + c[(k+1)%len(c)])
	}
	return b.String()
}

// TestLongWalkRepetition: the walk's start position comes back every 2,520
// plies, so its fourth occurrence, a draw, is at ply 7,560 and not before;
// repetition counted through each key's earlier occurrences finds it there
// as the scan of the whole game did.
func TestLongWalkRepetition(t *testing.T) {
	g, err := importSFENUSI(bareKingsWalk(7559))
	if err != nil {
		t.Fatal(err)
	}
	if g.over() {
		t.Fatalf("over at ply %d: %+v", g.ply(), g.result)
	}
	g, err = importSFENUSI(bareKingsWalk(7560))
	if err != nil {
		t.Fatal(err)
	}
	if !g.over() || !g.result.Draw || g.result.Reason != ReasonRepetition {
		t.Fatalf("at ply 7560: %+v", g.result)
	}
	// A fork of a cached game that is not its first counts from its own
	// line of play: one line walks on, another replays the same moves.
	h, err := importSFENUSI(bareKingsWalk(7550))
	if err != nil {
		t.Fatal(err)
	}
	s := h.remember()
	walk := strings.Fields(bareKingsWalk(7560))[len(strings.Fields(bareKingsWalk(7550))):]
	for line := 0; line < 2; line++ {
		c, err := decodeState(s)
		if err != nil {
			t.Fatal(err)
		}
		f := c.fork()
		for _, m := range walk {
			if err := f.play(f.pos.side, sdk.Move(m)); err != nil {
				t.Fatalf("line %d: %s: %v", line, m, err)
			}
		}
		if !f.over() || f.result.Reason != ReasonRepetition {
			t.Fatalf("line %d at ply %d: %+v", line, f.ply(), f.result)
		}
	}
}

// TestRecordCap: a record longer than sdk.MaxRecordMoves is refused before
// any move is replayed (its moves here are not even legal), and a game at
// the cap takes no more moves.
func TestRecordCap(t *testing.T) {
	text := "startpos moves" + strings.Repeat(" 1a1b", sdk.MaxRecordMoves+1)
	_, err := importSFENUSI(text)
	if re, ok := sdk.AsRuleError(err); !ok || re.Code != sdk.CodeBadNotation || !strings.Contains(re.Message, "more than") {
		t.Fatalf("a record over the cap: %v", err)
	}
	g, err := importSFENUSI(bareKingsWalk(2000))
	if err != nil {
		t.Fatal(err)
	}
	g.records = g.records[:len(g.records):len(g.records)]
	for len(g.records) < sdk.MaxRecordMoves {
		g.records = append(g.records, record{})
	}
	if err := g.play(g.pos.side, sdk.Resign); err == nil {
		t.Fatal("a move past the cap was played")
	}
}
