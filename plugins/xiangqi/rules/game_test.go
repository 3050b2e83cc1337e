package rules

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// playAll plays UCCI moves, failing the test on any error.
func playAll(t *testing.T, g *Game, moves string) {
	t.Helper()
	for _, w := range strings.Fields(moves) {
		m, err := g.pos.ParseLegalUCCI(w)
		if err == nil {
			err = g.Play(m)
		}
		if err != nil {
			t.Fatalf("%s: %v (position %s)", w, err, g.pos.FEN())
		}
	}
}

func resultString(r *sdk.Result) string {
	if r == nil {
		return "on"
	}
	w := "draw"
	if !r.Draw {
		w = []string{"red", "black"}[r.Winners[0]]
	}
	return w + " " + r.Reason
}

func TestGameEnds(t *testing.T) {
	// Red's shuffle with the horse and Black's with its horse, back to the start.
	shuffle := "b0c2 b9c7 c2b0 c7b9 "
	// Red checks on rank 9, then rank 8, while Black's general steps e9-e8-e9.
	redChecks := "h8h9 e9e8 h9h8 e8e9 "
	// The same with colours swapped: Black checks on ranks 0 and 1.
	blackChecks := "h1h0 e0e1 h0h1 e1e0 "
	tests := []struct {
		name  string
		fen   string
		moves string
		want  string // resultString after the moves
		ply   int    // the ply at which the game ended, -1 if on
	}{
		{"checkmate", "R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1", "", "red " + ReasonCheckmate, 0},
		{"checkmate by a move", "4k4/R8/9/9/9/9/9/9/9/3K4R w - - 0 1", "i0i9", "red " + ReasonCheckmate, 1},
		// Black's general on d9 may go neither to d8 (the chariot's rank)
		// nor to e9 (facing Red's general): no move, no check.
		{"stalemate loses", "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 0 1", "", "red " + ReasonStalemate, 0},
		{"twice is not yet repetition", StartFEN, shuffle + "b0c2 b9c7 c2b0", "on", -1},
		{"third occurrence is a draw", StartFEN, shuffle + shuffle, "draw " + ReasonRepetition, 8},
		{"perpetual check by Red loses", "4k4/7R1/9/9/9/9/9/9/9/3K5 w - - 0 1", redChecks + redChecks,
			"black " + ReasonPerpetualCheck, 8},
		{"perpetual check by Black loses", "3k5/9/9/9/9/9/9/9/7r1/4K4 b - - 0 1", blackChecks + blackChecks,
			"red " + ReasonPerpetualCheck, 8},
		// Red checks only in the second half of the cycle: a draw.
		{"checks on only some turns: a draw", "4k4/7R1/9/9/9/9/9/9/9/3K5 w - - 0 1",
			"d0d1 e9f9 d1d0 f9e9 " + redChecks, "draw " + ReasonRepetition, 8},
		{"120 quiet plies draw", "4k4/9/9/9/9/9/9/9/9/3K5 w - - 116 70", "d0d1 e9e8 d1d0 e8e9",
			"draw " + ReasonSixtyMoves, 4},
		{"119 quiet plies do not", "4k4/9/9/9/9/9/9/9/9/3K5 w - - 116 70", "d0d1 e9e8 d1d0", "on", -1},
		{"a capture resets the count", "4k4/9/9/9/9/9/4p4/9/4R4/3K5 w - - 119 70", "e1e3 e9f9", "on", -1},
		{"a forward soldier move resets the count", "4k4/9/9/9/4P4/9/9/9/9/3K5 w - - 119 70", "e5e6 e9e8", "on", -1},
		{"a sideways soldier move does not reset", "4k4/9/9/9/4P4/9/9/9/9/3K5 w - - 119 70", "e5d5",
			"draw " + ReasonSixtyMoves, 1},
		{"a position imported at 120 is drawn", "4k4/9/9/9/9/9/9/9/9/3K5 w - - 120 70", "", "draw " + ReasonSixtyMoves, 0},
		{"mate on the 120th ply is still mate", "4k4/R8/9/9/9/9/9/9/9/3K4R w - - 119 70", "i0i9",
			"red " + ReasonCheckmate, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGame(mustFEN(t, tc.fen))
			ended := -1
			if g.Over() {
				ended = 0
			}
			for _, w := range strings.Fields(tc.moves) {
				playAll(t, g, w)
				if ended < 0 && g.Over() {
					ended = len(g.moves)
				}
			}
			if got := resultString(g.Result()); got != tc.want || ended != tc.ply {
				t.Errorf("result %q at ply %d, want %q at ply %d", got, ended, tc.want, tc.ply)
			}
		})
	}
}

// TestRepetitionBothCheck covers the case no real game reaches easily: both
// sides checked on every turn of the cycle, which is a draw.
func TestRepetitionBothCheck(t *testing.T) {
	g := NewGame(StartPosition())
	playAll(t, g, "b0c2 b9c7 c2b0 c7b9 b0c2 b9c7 c2b0 c7b9")
	for i := range g.checks {
		g.checks[i] = true
	}
	if r := g.repetitionResult(0); !r.Draw || r.Reason != ReasonRepetition {
		t.Errorf("both checking: %+v, want a repetition draw", r)
	}
	g.checks[3] = false // one of Black's moves was quiet: Red loses
	if r := g.repetitionResult(0); r.Draw || r.Winners[0] != 1 || r.Reason != ReasonPerpetualCheck {
		t.Errorf("Red checking throughout: %+v, want Black to win by perpetual check", r)
	}
}

func TestPlayErrors(t *testing.T) {
	g := NewGame(StartPosition())
	if err := g.Play(newMove(sq(0, 0), sq(0, 5))); !hasCode(err, sdk.CodeIllegalMove) {
		t.Errorf("a5 rook jump: %v, want illegal_move", err)
	}
	g.Resign(Black)
	if err := g.Play(newMove(sq(7, 2), sq(4, 2))); !hasCode(err, sdk.CodeGameOver) {
		t.Errorf("move after resignation: %v, want game_over", err)
	}
	if err := g.Resign(Red); !hasCode(err, sdk.CodeGameOver) {
		t.Errorf("second resignation: %v, want game_over", err)
	}
}

func hasCode(err error, code string) bool {
	re, ok := sdk.AsRuleError(err)
	return ok && re.Code == code
}
