package rules

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestViewBoard(t *testing.T) {
	_, v, err := Variant{}.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	cells := map[int]sdk.Cell{
		0:  {Kind: "L", Owner: 1, Facing: 2}, // 9a
		4:  {Kind: "K", Owner: 1, Facing: 2}, // 5a
		10: {Kind: "R", Owner: 1, Facing: 2}, // 8b
		40: {Owner: sdk.NoSeat},              // 5e
		64: {Kind: "B", Owner: 0},            // 8h
		70: {Kind: "R", Owner: 0},            // 2h
		80: {Kind: "L", Owner: 0},            // 1i
	}
	for i, want := range cells {
		if v.Board[i] != want {
			t.Errorf("cell %d = %+v, want %+v", i, v.Board[i], want)
		}
	}
	if v.Position != StartSFEN || v.Status != sdk.Playing || len(v.Legal) != 30 || v.ToMove[0] != 0 {
		t.Errorf("start view: %q %s %d legal, to move %v", v.Position, v.Status, len(v.Legal), v.ToMove)
	}
}

func TestViewLegal(t *testing.T) {
	// After 7g7f 3c3d the bishop may take on 2b promoting or not: both are
	// listed with the same cells; a drop names its piece.
	g := gameFrom(t, StartSFEN, "7g7f", "3c3d", "8h2b+", "3a2b")
	v := g.view()
	if v.Hands[0][0] != (sdk.HandPiece{Kind: "B", Count: 1}) || len(v.Hands[1]) != 1 {
		t.Errorf("hands %+v", v.Hands)
	}
	var drop *sdk.LegalMove
	for i, m := range v.Legal {
		if m.Move == "B*5e" {
			drop = &v.Legal[i]
		}
	}
	if drop == nil || drop.Kind != sdk.DropMove || drop.From != -1 || drop.To != 40 || drop.Drop != "B" {
		t.Errorf("drop listed as %+v", drop)
	}
	if v.LastMove == nil || v.LastMove.Move != "3a2b" || v.LastMove.From != 6 || v.LastMove.To != 16 || v.LastMove.Text != "△同　銀" {
		t.Errorf("last move %+v", v.LastMove)
	}
	g = gameFrom(t, StartSFEN, "7g7f", "3c3d")
	forms := map[bool]sdk.LegalMove{}
	for _, m := range g.view().Legal {
		if m.From == 64 && m.To == 16 {
			forms[m.Promote] = m
		}
	}
	if len(forms) != 2 || forms[true].Move != "8h2b+" || forms[false].Move != "8h2b" {
		t.Errorf("promotion choice listed as %+v", forms)
	}
}

func TestViewCheckmate(t *testing.T) {
	g := gameFrom(t, "8k/9/6NGP/9/9/9/9/9/4K4 b - 1", "1c1b+")
	v := g.view()
	// The mated king stays upright with its face and the check mark; a
	// king face down is Yonin's eliminated player, never shogi's.
	if k := v.Board[8]; k.Kind != "K" || k.Owner != 1 || k.Flipped || len(v.InCheck) != 1 || v.InCheck[0] != 1 {
		t.Errorf("mated king: cell %+v, in check %v", v.Board[8], v.InCheck)
	}
	for i, c := range v.Board {
		if c.Flipped {
			t.Errorf("cell %d is face down: %+v", i, c)
		}
	}
	if v.Result == nil || v.Result.Reason != ReasonCheckmate {
		t.Errorf("result %+v", v.Result)
	}
}

func TestStartOptions(t *testing.T) {
	_, _, err := Variant{}.Start(sdk.Options{"handicap": "lance"})
	if re, ok := sdk.AsRuleError(err); !ok || re.Code != sdk.CodeBadOption {
		t.Errorf("err = %v, want bad_option", err)
	}
}

// TestViewLegalOrder: the legal list is in the order of the move texts,
// each move once, the declaration in its place among them; on random games
// and on a position where declaring is legal.
func TestViewLegalOrder(t *testing.T) {
	check := func(name string, v sdk.View) {
		t.Helper()
		for i := 1; i < len(v.Legal); i++ {
			if v.Legal[i-1].Move >= v.Legal[i].Move {
				t.Fatalf("%s: legal %d %q then %d %q: not in order", name, i-1, v.Legal[i-1].Move, i, v.Legal[i].Move)
			}
		}
	}
	g := gameFrom(t, "+P+P+P+P5/RB2K4/+P+P+P+P5/9/9/9/9/9/8k b RB 1")
	v := g.view()
	if !slices.ContainsFunc(v.Legal, func(l sdk.LegalMove) bool { return l.Move == DeclareMove }) {
		t.Fatal("the declaration is not listed")
	}
	check("declaration", v)
	rng := rand.New(rand.NewPCG(3, 4))
	for game := range 20 {
		st, v, err := Variant{}.Start(nil)
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < 120 && v.Status == sdk.Playing; ply++ {
			check(fmt.Sprintf("game %d ply %d", game, ply), v)
			var moves []sdk.LegalMove
			for _, l := range v.Legal {
				if l.Kind != sdk.Action {
					moves = append(moves, l)
				}
			}
			if st, v, err = (Variant{}).Play(st, v.ToMove[0], moves[rng.IntN(len(moves))].Move); err != nil {
				t.Fatal(err)
			}
		}
	}
}
