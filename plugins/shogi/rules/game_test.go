package rules

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// gameFrom starts a game at sfen and plays moves (USI, by the side to move).
func gameFrom(t *testing.T, sfen string, moves ...string) *game {
	t.Helper()
	p, err := ParseSFEN(sfen)
	if err != nil {
		t.Fatalf("ParseSFEN(%q): %v", sfen, err)
	}
	g := newGame(p)
	for i, m := range moves {
		if err := g.play(g.pos.side, sdk.Move(m)); err != nil {
			t.Fatalf("move %d %s: %v", i+1, m, err)
		}
	}
	return g
}

func legalSet(p *Position) map[string]bool {
	out := map[string]bool{}
	for _, m := range p.legalMoves(nil) {
		out[m.USI()] = true
	}
	return out
}

// TestMoveRules checks single moves for being legal or not: uchifuzume and
// its edge cases, nifu, compulsory promotion, drops on dead cells, pins.
func TestMoveRules(t *testing.T) {
	tests := []struct {
		name  string
		sfen  string
		move  string
		legal bool
	}{
		// Uchifuzume (mate by pawn drop) is forbidden.
		{"uchifuzume: defended pawn, no escape", "8k/9/6NS1/9/9/9/9/9/4K4 b P 1", "P*1b", false},
		{"uchifuzume: king takes an undefended pawn", "8k/9/9/9/9/9/9/9/4K2L1 b P 1", "P*1b", true},
		{"uchifuzume: pinned defender cannot take", "R6gk/9/8G/9/9/9/9/9/4K4 b P 1", "P*1b", false},
		{"uchifuzume: unpinned defender takes", "7gk/9/8G/9/9/9/9/9/4K4 b P 1", "P*1b", true},
		{"uchifuzume: escape opened by the pawn itself", "4k4/R8/2N3N2/9/9/9/9/9/4K4 b P 1", "P*5b", true},
		{"uchifuzume: that escape covered too", "4k4/R8/2N2GN2/9/9/9/9/9/4K4 b P 1", "P*5b", false},
		{"uchifuzume: Gote's drop", "4k4/9/9/9/9/9/1g7/2g6/K8 w p 1", "P*9h", false},
		{"pawn push mate is legal", "8k/9/6NGP/9/9/9/9/9/4K4 b - 1", "1c1b", true},
		{"pawn drop check that is not mate", "8k/9/9/9/9/9/9/9/4K4 b P 1", "P*1b", true},
		// Nifu counts unpromoted pawns only.
		{"nifu", "4k4/9/9/9/9/9/4P4/9/4K4 b P 1", "P*5e", false},
		{"tokin on the file is no nifu", "4k4/9/9/9/9/9/4+P4/9/4K4 b P 1", "P*5e", true},
		{"the enemy's pawn is no nifu", "4k4/9/4p4/9/9/9/9/9/4K4 b P 1", "P*5e", true},
		// Dead cells: no drop and no unpromoted arrival.
		{"pawn drop on the last rank", "4k4/9/9/9/9/9/9/9/4K4 b P 1", "P*1a", false},
		{"lance drop on the last rank", "4k4/9/9/9/9/9/9/9/4K4 b L 1", "L*1a", false},
		{"lance drop on the second rank", "4k4/9/9/9/9/9/9/9/4K4 b L 1", "L*1b", true},
		{"knight drop on the second rank", "4k4/9/9/9/9/9/9/9/4K4 b N 1", "N*1b", false},
		{"knight drop on the third rank", "4k4/9/9/9/9/9/9/9/4K4 b N 1", "N*1c", true},
		{"Gote pawn drop on its last rank", "4k4/9/9/9/9/9/9/9/4K4 w p 1", "P*1i", false},
		{"pawn to the last rank must promote", "4k4/P8/9/9/9/9/9/9/4K4 b - 1", "9b9a", false},
		{"pawn to the last rank promoted", "4k4/P8/9/9/9/9/9/9/4K4 b - 1", "9b9a+", true},
		{"lance to the last rank must promote", "4k4/9/L8/9/9/9/9/9/4K4 b - 1", "9c9a", false},
		{"lance to the second rank may stay", "4k4/9/L8/9/9/9/9/9/4K4 b - 1", "9c9b", true},
		{"knight to the second rank must promote", "4k4/9/9/N8/9/9/9/9/4K4 b - 1", "9d8b", false},
		{"knight to the second rank promoted", "4k4/9/9/N8/9/9/9/9/4K4 b - 1", "9d8b+", true},
		{"knight to the third rank may stay", "4k4/9/9/9/N8/9/9/9/4K4 b - 1", "9e8c", true},
		{"silver to the last rank may stay", "4k4/S8/9/9/9/9/9/9/4K4 b - 1", "9b9a", true},
		{"promotion when leaving the zone", "4k4/9/S8/9/9/9/9/9/4K4 b - 1", "9c8d+", true},
		{"no promotion outside the zone", "4k4/9/9/9/S8/9/9/9/4K4 b - 1", "9e9d+", false},
		{"silver outside the zone", "4k4/9/9/9/S8/9/9/9/4K4 b - 1", "9e9d", true},
		{"gold never promotes", "4k4/9/G8/9/9/9/9/9/4K4 b - 1", "9c9b+", false},
		{"Gote pawn must promote on rank i", "4k4/9/9/9/9/9/9/p8/4K4 w - 1", "9h9i", false},
		// The king may not be left in check.
		{"pinned gold along the pin", "4r3k/9/9/9/9/9/9/4G4/4K4 b - 1", "5h5g", true},
		{"pinned gold off the pin", "4r3k/9/9/9/9/9/9/4G4/4K4 b - 1", "5h4h", false},
		{"distant pin holds", "4r3k/9/9/9/4G4/9/9/9/4K4 b - 1", "5e4e", false},
		{"distant pin allows moves along it", "4r3k/9/9/9/4G4/9/9/9/4K4 b - 1", "5e5d", true},
		{"lance pin", "4l3k/9/9/9/4S4/9/9/9/4K4 b - 1", "5e4d", false},
		{"lance pin allows moves along it", "4l3k/9/9/9/4S4/9/9/9/4K4 b - 1", "5e5d", true},
		{"bishop pin off the line", "4k4/9/9/9/8b/9/6S2/9/4K4 b - 1", "3g3f", false},
		{"bishop pin along the line", "4k4/9/9/9/8b/9/6S2/9/4K4 b - 1", "3g2f", true},
		{"double check: no block", "4r3k/9/9/9/8b/9/9/9/4K4 b G 1", "G*5h", false},
		{"double check: king steps out", "4r3k/9/9/9/8b/9/9/9/4K4 b G 1", "5i4i", true},
		{"double check: not along a line", "4r3k/9/9/9/8b/9/9/9/4K4 b G 1", "5i4h", false},
		{"king into check", "4k4/9/9/9/9/9/9/5r3/4K4 b - 1", "5i4i", false},
		{"king along the checking line", "4k4/9/9/9/4r4/9/9/9/4K4 b - 1", "5i5h", false},
		{"check must be answered", "4k4/9/9/9/4r4/9/9/9/S3K4 b - 1", "9i8h", false},
		{"check answered by a drop", "4k4/9/9/9/4r4/9/9/9/4K4 b G 1", "G*5g", true},
		{"adjacent check cannot be blocked", "4k4/9/9/9/9/9/9/4g4/4K4 b G 1", "G*4h", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseSFEN(tc.sfen)
			if err != nil {
				t.Fatal(err)
			}
			if got := legalSet(&p)[tc.move]; got != tc.legal {
				t.Errorf("%s legal = %v, want %v (legal: %v)", tc.move, got, tc.legal, sortedKeys(legalSet(&p)))
			}
			// The bulk counter must agree with the generator.
			if n, want := p.countLegal(), len(p.legalMoves(nil)); n != want {
				t.Errorf("countLegal = %d, generated %d", n, want)
			}
		})
	}
}

// TestEndings plays games to their end and checks the result.
func TestEndings(t *testing.T) {
	rep := func(cycle string, times int) []string {
		return strings.Fields(strings.Repeat(cycle+" ", times))
	}
	tests := []struct {
		name    string
		sfen    string
		moves   []string
		reason  string
		winners []sdk.Seat
		draw    bool
	}{
		{"checkmate by a pawn push", "8k/9/6NGP/9/9/9/9/9/4K4 b - 1", []string{"1c1b+"}, ReasonCheckmate, []sdk.Seat{0}, false},
		{"stalemate loses", "8k/9/6N2/7G1/9/9/9/9/4K4 b - 1", []string{"2d2c"}, ReasonStalemate, []sdk.Seat{0}, false},
		{"set-up position without moves", "8k/9/6NG1/9/9/9/9/9/4K4 w - 1", nil, ReasonStalemate, []sdk.Seat{0}, false},
		{"repetition draw", StartSFEN, rep("5i5h 5a5b 5h5i 5b5a", 3), ReasonRepetition, nil, true},
		{"checks by one side only part of the cycle: draw", "8k/9/R8/9/9/9/9/9/4K4 b - 1",
			rep("9c9a 1a1b 9a9c 1b1a", 3), ReasonRepetition, nil, true},
		{"perpetual check by Sente loses", "8k/9/R8/9/9/9/9/9/4K4 b - 1",
			append([]string{"9c9a"}, rep("1a1b 9a9b 1b1a 9b9a", 3)...), ReasonPerpetualCheck, []sdk.Seat{1}, false},
		{"perpetual check by Gote loses", "4k4/9/9/9/9/9/r8/9/8K w - 1",
			append([]string{"9g9i"}, rep("1i1h 9i9h 1h1i 9h9i", 3)...), ReasonPerpetualCheck, []sdk.Seat{0}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.moves) > 0 {
				before := gameFrom(t, tc.sfen, tc.moves[:len(tc.moves)-1]...)
				if before.over() {
					t.Fatalf("over one move early: %+v", *before.result)
				}
			}
			g := gameFrom(t, tc.sfen, tc.moves...)
			if !g.over() {
				t.Fatal("the game is not over")
			}
			r := g.result
			if r.Reason != tc.reason || r.Draw != tc.draw || !equalSeats(r.Winners, tc.winners) {
				t.Errorf("result %+v, want reason %s winners %v draw %v", *r, tc.reason, tc.winners, tc.draw)
			}
			v := g.view()
			if v.Status != sdk.Over || len(v.Legal) != 0 || len(v.ToMove) != 0 {
				t.Errorf("view of a finished game: status %s, %d legal, to move %v", v.Status, len(v.Legal), v.ToMove)
			}
			if err := g.play(g.pos.side, "5i5h"); err == nil {
				t.Error("a move after the end was accepted")
			}
		})
	}
}

// TestDeclaration checks the 27-point rule at the threshold and one short.
func TestDeclaration(t *testing.T) {
	tests := []struct {
		name  string
		sfen  string
		valid bool
	}{
		{"Sente with 28", "+P+P+P+P5/RB2K4/+P+P+P+P5/9/9/9/9/9/8k b RB 1", true},
		{"Sente with 27", "+P+P+P+P5/RB2K4/+P+P+P+P5/9/9/9/9/9/8k b R4P 1", false},
		{"Gote with 27", "8K/9/9/9/9/9/+p+p+p+p5/rb2k4/+p+p+p+p5 w r4p 1", true},
		{"Gote with 26", "8K/9/9/9/9/9/+p+p+p+p5/rb2k4/+p+p+p+p5 w r3p 1", false},
		{"Sente with 9 pieces in the camp", "+P+P+P+P5/RB2K4/+P+P+P6/9/9/9/9/9/8k b RBG 1", false},
		{"Sente's king outside the camp", "+P+P+P+P5/RB7/+P+P+P+P5/4K4/9/9/9/9/8k b RB 1", false},
		{"Sente in check", "+P+P+P+Pl4/RB2K4/+P+P+P+P5/9/9/9/9/9/8k b RB 1", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := gameFrom(t, tc.sfen)
			listed := false
			for _, m := range g.view().Legal {
				if m.Move == DeclareMove {
					listed = true
					if m.Kind != sdk.Action || m.Key != ActionDeclare || m.From != -1 || m.To != -1 {
						t.Errorf("declaration listed as %+v", m)
					}
				}
			}
			if listed != tc.valid {
				t.Errorf("declaration listed = %v, want %v", listed, tc.valid)
			}
			err := g.play(g.pos.side, DeclareMove)
			if (err == nil) != tc.valid {
				t.Fatalf("declare: err = %v, want valid = %v", err, tc.valid)
			}
			if tc.valid {
				if r := g.result; r == nil || r.Reason != ReasonDeclaration || !equalSeats(r.Winners, []sdk.Seat{sdk.Seat(g.pos.side)}) {
					t.Errorf("result %+v", r)
				}
			} else if re, ok := sdk.AsRuleError(err); !ok || re.Code != sdk.CodeIllegalMove {
				t.Errorf("err = %v, want illegal_move", err)
			}
		})
	}
}

func TestResignation(t *testing.T) {
	for seat := 0; seat < 2; seat++ {
		// Either seat may resign, whoever is to move.
		g := gameFrom(t, StartSFEN, "7g7f")
		if err := g.play(seat, sdk.Resign); err != nil {
			t.Fatal(err)
		}
		if r := g.result; r.Reason != ReasonResignation || !equalSeats(r.Winners, []sdk.Seat{sdk.Seat(seat ^ 1)}) {
			t.Errorf("seat %d resigned: %+v", seat, *r)
		}
	}
}

func TestPlayErrors(t *testing.T) {
	tests := []struct {
		seat int
		move string
		code string
	}{
		{1, "3c3d", sdk.CodeNotYourTurn},
		{0, "7g7e", sdk.CodeIllegalMove},
		{0, "7g7f+", sdk.CodeIllegalMove},
		{0, "P*5e", sdk.CodeIllegalMove},
		{0, "hello", sdk.CodeBadMove},
		{0, "7g7g", sdk.CodeBadMove},
		{0, "K*5e", sdk.CodeBadMove},
		{0, "win", sdk.CodeIllegalMove},
		{2, "7g7f", sdk.CodeNotYourTurn},
	}
	for _, tc := range tests {
		g := gameFrom(t, StartSFEN)
		err := g.play(tc.seat, sdk.Move(tc.move))
		if re, ok := sdk.AsRuleError(err); !ok || re.Code != tc.code {
			t.Errorf("seat %d %q: err = %v, want code %s", tc.seat, tc.move, err, tc.code)
		}
		if g.ply() != 0 {
			t.Errorf("a rejected move changed the game")
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func equalSeats(a, b []sdk.Seat) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLegalListIsThePosition plays a game through Play (so every move
// forks a cached game) and checks that the legal list each game keeps is
// exactly its position's, and that playing on from a game leaves the
// list of the game it forked from as it was.
func TestLegalListIsThePosition(t *testing.T) {
	s, _, err := Variant{}.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	for ply := 0; ply < 120; ply++ {
		g, err := decodeState(s)
		if err != nil {
			t.Fatal(err)
		}
		if g.over() {
			break
		}
		pos := g.pos
		want := pos.legalMoves(nil)
		if !slices.Equal(g.legal, want) {
			t.Fatalf("ply %d: kept list has %d moves, the position %d", ply, len(g.legal), len(want))
		}
		// A replay (a State the cache misses) reuses its arrays move
		// after move and must end on the same list.
		r, err := replayState(s)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.legal, want) {
			t.Fatalf("ply %d: replayed list has %d moves, the position %d", ply, len(r.legal), len(want))
		}
		kept := slices.Clone(g.legal)
		m := want[(ply*7)%len(want)]
		next, _, err := Variant{}.Play(s, sdk.Seat(pos.side), sdk.Move(m.USI()))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(g.legal, kept) {
			t.Fatalf("ply %d: playing on changed the list of the game it forked from", ply)
		}
		s = next
	}
}
