package rules

import (
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestDescribe(t *testing.T) {
	d := Variant{}.Describe()
	if d.ID != "xiangqi" || d.Board.Files != 9 || d.Board.Ranks != 10 || !d.Board.Points || !d.Resign || d.Hands {
		t.Errorf("description: %+v", d)
	}
	var ids string
	for _, p := range d.Pieces {
		ids += p.ID
		if len(p.Glyphs) != 2 {
			t.Errorf("piece %s: %d glyphs", p.ID, len(p.Glyphs))
		}
	}
	if ids != "KABNRCP" || !d.Pieces[0].Royal {
		t.Errorf("pieces %q, general royal %v", ids, d.Pieces[0].Royal)
	}
}

func TestStartView(t *testing.T) {
	st, v, err := Variant{}.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	if v.Position != StartFEN || v.Ply != 0 || v.Status != sdk.Playing || len(v.Legal) != 44 {
		t.Errorf("start view: position %q ply %d status %s, %d legal", v.Position, v.Ply, v.Status, len(v.Legal))
	}
	// Cell 0 is a9 (Black's chariot), cell 4 e9, cell 85 e0, cell 89 i0.
	for _, c := range []struct {
		cell  int
		kind  string
		owner sdk.Seat
	}{{0, "R", 1}, {4, "K", 1}, {19, "C", 1}, {27, "P", 1}, {85, "K", 0}, {89, "R", 0}, {45, "", sdk.NoSeat}} {
		got := v.Board[c.cell]
		if got.Kind != c.kind || got.Owner != c.owner || got.Facing != 2*int(max(c.owner, 0)) {
			t.Errorf("cell %d = %+v, want %s of seat %d", c.cell, got, c.kind, c.owner)
		}
	}
	var found bool
	for _, m := range v.Legal {
		if m.Move == "h2e2" {
			found = true
			if m.Text != "C2.5" || m.Alt != "炮二平五" || m.From != 7*9+7 || m.To != 7*9+4 || m.Seat != 0 {
				t.Errorf("h2e2 listed as %+v", m)
			}
		}
	}
	if !found {
		t.Error("h2e2 is not listed")
	}
	if _, _, err := (Variant{}).Start(sdk.Options{"x": "1"}); !hasCode(err, sdk.CodeBadOption) {
		t.Errorf("Start with an option: %v", err)
	}

	st, v, err = Variant{}.Play(st, 0, "h2e2")
	if err != nil {
		t.Fatal(err)
	}
	if v.LastMove == nil || v.LastMove.Text != "C2.5" || len(v.History) != 1 || v.History[0].Text != "C2.5" ||
		v.ToMove[0] != 1 {
		t.Errorf("after h2e2: last %+v history %+v to move %v", v.LastMove, v.History, v.ToMove)
	}
	if _, _, err := (Variant{}).Play(st, 0, "e2e6"); !hasCode(err, sdk.CodeNotYourTurn) {
		t.Errorf("Red moving twice: %v", err)
	}
	if _, _, err := (Variant{}).Play(st, 1, "e9e7"); !hasCode(err, sdk.CodeIllegalMove) {
		t.Errorf("illegal move: %v", err)
	}
	if _, _, err := (Variant{}).Play(st, 1, "nonsense"); !hasCode(err, sdk.CodeBadMove) {
		t.Errorf("bad move text: %v", err)
	}
	_, v, err = Variant{}.Play(st, 0, sdk.Resign) // the side not to move may resign
	if err != nil || v.Status != sdk.Over || v.Result.Reason != ReasonResignation || v.Result.Winners[0] != 1 ||
		len(v.Legal) != 0 || v.History[1].Move != sdk.Resign {
		t.Errorf("Red resigning: %+v, %v", v.Result, err)
	}
}

func TestCheckView(t *testing.T) {
	_, v, err := Variant{}.Import(NotationFENUCCI, "fen 4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.InCheck) != 1 || v.InCheck[0] != 1 || len(v.Notices) != 1 {
		t.Errorf("in check: %v, notices %v", v.InCheck, v.Notices)
	}
	_, v, err = Variant{}.Import(NotationFENUCCI, "fen R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	if v.Status != sdk.Over || v.Result.Reason != ReasonCheckmate || len(v.InCheck) != 1 || len(v.ToMove) != 0 {
		t.Errorf("mated: %+v", v)
	}
	// The mated general stays upright, in check; nothing lies face down.
	for i, c := range v.Board {
		if c.Flipped {
			t.Errorf("cell %d is face down: %+v", i, c)
		}
	}
}
