package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// layout writes a board text from "square=piece" items such as "5i=Ks 4c=+Pn^"
// and appends the rest of the position text.
func layout(pieces, rest string) string {
	var grid [81]string
	for _, item := range strings.Fields(pieces) {
		sq, tok, _ := strings.Cut(item, "=")
		i, ok := parseSquare(sq)
		if !ok {
			panic("bad square " + sq)
		}
		grid[i] = tok
	}
	var b strings.Builder
	for r := range 9 {
		if r > 0 {
			b.WriteByte('/')
		}
		empty := 0
		for c := range 9 {
			if grid[r*9+c] == "" {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteString(grid[r*9+c])
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
	}
	return b.String() + " " + rest
}

// startGame imports a position text as a game.
func startGame(t *testing.T, text string) *game {
	t.Helper()
	g, err := parseRecord(text)
	if err != nil {
		t.Fatalf("position %q: %v", text, err)
	}
	return g
}

// playAll plays move texts, failing the test on the first rejection.
func playAll(t *testing.T, g *game, moves ...string) {
	t.Helper()
	for _, s := range moves {
		seat, m, err := parseMove(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if err := g.play(seat, m); err != nil {
			t.Fatalf("%s at %s: %v", s, g.pos.Text(), err)
		}
	}
}

// rejects asserts that the move text is refused with the given code.
func rejects(t *testing.T, g *game, s, code string) {
	t.Helper()
	seat, m, err := parseMove(s)
	if err == nil {
		err = g.play(seat, m)
	}
	re, ok := sdk.AsRuleError(err)
	if !ok || re.Code != code {
		t.Fatalf("%s at %s: got %v, want a RuleError %q", s, g.pos.Text(), err, code)
	}
}

// legalTexts lists the legal moves of the game as move texts.
func legalTexts(g *game) []string {
	var out []string
	for _, m := range g.legal() {
		out = append(out, moveText(int(g.pos.turn), m))
	}
	slices.Sort(out)
	return out
}

func hasLegal(g *game, s string) bool { return slices.Contains(legalTexts(g), s) }

// wantTurn asserts the seat to move ("S", "W", "N", "E", or "-" when over).
func wantTurn(t *testing.T, g *game, want string) {
	t.Helper()
	got := "-"
	if g.pos.turn >= 0 {
		got = string(seatUpper[g.pos.turn])
	}
	if got != want {
		t.Fatalf("turn %s, want %s at %s", got, want, g.pos.Text())
	}
}

func sq(s string) int {
	i, ok := parseSquare(s)
	if !ok {
		panic("bad square " + s)
	}
	return i
}
