package rules

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// build makes a validated position from pieces written as a FEN letter and a
// UCCI square ("Ke0" a red general on e0, "ke9" a black one).
func build(t testing.TB, side Color, pieces ...string) *Position {
	t.Helper()
	p := new(Position)
	p.clear()
	p.side = side
	for _, s := range pieces {
		k, c, ok := pieceOfLetter(s[0])
		at, ok2 := parseSquare(s[1:])
		if !ok || !ok2 || p.board[at] != Empty {
			t.Fatalf("build: bad piece %q", s)
		}
		p.put(at, makePiece(c, k))
	}
	if err := p.validate(); err != nil {
		t.Fatalf("build(%q): %v", pieces, err)
	}
	return p
}

func mustFEN(t testing.TB, fen string) *Position {
	t.Helper()
	p, err := ParseFEN(fen)
	if err != nil {
		t.Fatalf("ParseFEN(%q): %v", fen, err)
	}
	return p
}

// legalTexts returns the UCCI texts of the legal moves, sorted.
func legalTexts(p *Position) []string {
	var out []string
	for _, m := range p.LegalMoves() {
		out = append(out, UCCI(m))
	}
	slices.Sort(out)
	return out
}

// movesFrom returns the legal moves of the piece on square from.
func movesFrom(p *Position, from string) []string {
	var out []string
	for _, m := range legalTexts(p) {
		if m[:2] == from {
			out = append(out, m)
		}
	}
	return out
}

// TestPieceRules checks each rule of SPEC §3 on a small position: the legal
// moves of one piece, exactly.
func TestPieceRules(t *testing.T) {
	tests := []struct {
		name   string
		side   Color
		pieces []string
		from   string
		want   string // the legal moves of the piece on from, space-separated
	}{
		{"general stays in the palace", Red, []string{"Kd0", "kf9"}, "d0", "d0d1 d0e0"},
		{"general may not face the other general", Red, []string{"Ke1", "kd9"}, "e1", "e1e0 e1e2 e1f1"},
		{"general captures; stays off the chariot's file and the open f-file", Red, []string{"Ke1", "kf9", "re2"}, "e1", "e1d1 e1e2"},
		{"advisor on the palace diagonals", Red, []string{"Ke0", "kf9", "Ae1"}, "e1", "e1d0 e1d2 e1f0 e1f2"},
		{"advisor at a palace corner", Red, []string{"Ke0", "kf9", "Ad2"}, "d2", "d2e1"},
		{"elephant two points diagonally", Red, []string{"Ke0", "kf9", "Be2"}, "e2", "e2c0 e2c4 e2g0 e2g4"},
		{"elephant eye blocked", Red, []string{"Ke0", "kf9", "Be2", "Nd1", "nf3"}, "e2", "e2c4 e2g0"},
		{"elephant never crosses the river", Red, []string{"Ke0", "kf9", "Bc4"}, "c4", "c4a2 c4e2"},
		{"black elephant never crosses the river", Black, []string{"Kd0", "ke9", "bc5"}, "c5", "c5a7 c5e7"},
		{"horse all eight", Red, []string{"Ke0", "kf9", "Ne4"}, "e4", "e4c3 e4c5 e4d2 e4d6 e4f2 e4f6 e4g3 e4g5"},
		{"horse legs blocked", Red, []string{"Ke0", "kf9", "Ne4", "Re5", "rd4"}, "e4", "e4d2 e4f2 e4g3 e4g5"},
		{"horse in the corner, leg blocked", Red, []string{"Ke0", "kf9", "Na0", "Ra1"}, "a0", "a0c1"},
		{"chariot slides and captures", Red, []string{"Kd0", "kf9", "Re5", "pe6", "Ne3", "Pc5"},
			"e5", "e5d5 e5e4 e5e6 e5f5 e5g5 e5h5 e5i5"},
		// Along rank 5 from a5: b5 empty, a screen on c5, d5 empty, a black
		// rook on e5, then a second screen f5 and a black soldier on g5.
		{"cannon with zero, one and two screens", Red, []string{"Kd0", "kf9", "Ca5", "nc5", "re5", "nf5", "pg5"},
			"a5", "a5a0 a5a1 a5a2 a5a3 a5a4 a5a6 a5a7 a5a8 a5a9 a5b5 a5e5"},
		{"cannon does not capture its own side", Red, []string{"Kd0", "kf9", "Ca5", "Nc5", "Re5"}, "a5",
			"a5a0 a5a1 a5a2 a5a3 a5a4 a5a6 a5a7 a5a8 a5a9 a5b5"},
		{"soldier before the river: forward only", Red, []string{"Kd0", "kf9", "Pe3"}, "e3", "e3e4"},
		{"soldier at the river bank: forward only", Red, []string{"Kd0", "kf9", "Pe4"}, "e4", "e4e5"},
		{"soldier across the river: forward and sideways", Red, []string{"Kd0", "kf9", "Pe5"}, "e5", "e5d5 e5e6 e5f5"},
		{"soldier on the last rank: sideways only", Red, []string{"Kd0", "kf9", "Pa9"}, "a9", "a9b9"},
		{"black soldier before the river", Black, []string{"Kd0", "kf9", "pe6"}, "e6", "e6e5"},
		{"black soldier across the river", Black, []string{"Kd0", "kf9", "pe4"}, "e4", "e4d4 e4e3 e4f4"},
		// Black's horse on e5 is the only piece between the generals.
		{"flying-general pin: the horse cannot move", Black, []string{"Ke0", "ke9", "ne5"}, "e5", ""},
		{"flying-general pin: a cannon moves only along the file", Black, []string{"Ke0", "ke9", "ce5"}, "e5",
			"e5e1 e5e2 e5e3 e5e4 e5e6 e5e7 e5e8"},
		{"a chariot pinned by a chariot", Red, []string{"Ke0", "kf9", "Re3", "re8"}, "e3",
			"e3e1 e3e2 e3e4 e3e5 e3e6 e3e7 e3e8"},
		// The cannon on e7 has no screen; a rook arriving on e3 would be one.
		{"a piece may not become a screen for an enemy cannon", Red, []string{"Ke0", "kf9", "ce7", "Rd3"}, "d3",
			"d3a3 d3b3 d3c3 d3d0 d3d1 d3d2 d3d4 d3d5 d3d6 d3d7 d3d8 d3d9 d3f3 d3g3 d3h3 d3i3"},
		// Two screens (e2, e3): either leaving gives the cannon its one screen.
		{"a screen may not leave when it is one of two", Red, []string{"Ke0", "kf9", "ce7", "Re2", "Ne3"}, "e3", ""},
		// A horse leg next to the general: the blocker may not leave.
		{"a horse leg blocker is pinned but may take the horse", Red, []string{"Ke0", "kf9", "nd2", "Rd1"}, "d1", "d1d2"},
		{"check must be answered", Red, []string{"Ke0", "kf9", "re6", "Ra4"}, "a4", "a4e4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, tc.side, tc.pieces...)
			got := strings.Join(movesFrom(p, tc.from), " ")
			if got != tc.want {
				t.Errorf("moves from %s in %s:\n got %q\nwant %q", tc.from, p.FEN(), got, tc.want)
			}
			// The fast count must agree with the listed moves.
			if n, _ := p.perft(context.Background(), 1); n != uint64(len(p.LegalMoves())) {
				t.Errorf("perft(1) = %d, %d legal moves", n, len(p.LegalMoves()))
			}
		})
	}
}

func TestAttacks(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
		check  bool
	}{
		{"chariot on the file", []string{"Ke0", "kf9", "re7"}, true},
		{"chariot blocked", []string{"Ke0", "kf9", "re7", "Pe3"}, false},
		{"cannon without a screen", []string{"Ke0", "kf9", "ce7"}, false},
		{"cannon over one screen", []string{"Ke0", "kf9", "ce7", "Pe3"}, true},
		{"cannon over an enemy screen", []string{"Ke0", "kf9", "ce7", "pe5"}, true},
		{"cannon over two screens", []string{"Ke0", "kf9", "ce7", "Pe3", "pe5"}, false},
		{"cannon along the rank", []string{"Ke0", "kf9", "ca0", "Nb0"}, true},
		{"horse", []string{"Ke0", "kf9", "nd2"}, true},
		{"horse with its leg blocked", []string{"Ke0", "kf9", "nd2", "Ad1"}, false},
		{"horse leg is beside the horse, not the general", []string{"Ke0", "kf9", "nd2", "Pe2"}, true},
		{"soldier in front", []string{"Ke0", "kf9", "pe1"}, true},
		{"soldier beside", []string{"Ke0", "kf9", "pd0"}, true},
		{"soldier behind does not attack", []string{"Ke1", "kf9", "pe0"}, false},
		{"facing generals", []string{"Ke0", "ke9"}, true},
		{"generals with a piece between", []string{"Ke0", "ke9", "Pe3"}, false},
		{"elephant and advisor never attack the general", []string{"Ke0", "kf9", "ad1", "bc2"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := new(Position) // built by hand: some are not legal with Black to move
			p.clear()
			for _, s := range tc.pieces {
				k, c, _ := pieceOfLetter(s[0])
				at, _ := parseSquare(s[1:])
				p.put(at, makePiece(c, k))
			}
			if got := p.attacked(p.king[Red], Red); got != tc.check {
				t.Errorf("red general attacked = %v, want %v", got, tc.check)
			}
		})
	}
}
