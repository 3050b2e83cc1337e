package rules

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// randomPositions plays random games from the start and returns every
// position on the way, for checks of the engine-facing API.
func randomPositions(t *testing.T, games, plies int) []Position {
	t.Helper()
	var out []Position
	rng := rand.New(rand.NewPCG(7, 11))
	for range games {
		p := startPosition(Rules{}, 0)
		p.cacheChecks()
		for range plies {
			moves := p.LegalMoves(nil)
			if len(moves) == 0 {
				break
			}
			out = append(out, p)
			p.Play(moves[rng.IntN(len(moves))])
		}
	}
	return out
}

// samePosition compares positions up to the order of the rook list, which
// depends on how the position was reached.
func samePosition(a, b Position) bool {
	slices.Sort(a.rooks[:])
	slices.Sort(b.rooks[:])
	return a == b
}

func TestSetTurnToTheSeatToMoveChangesNothing(t *testing.T) {
	for _, p := range randomPositions(t, 20, 120) {
		q := p
		if !q.SetTurn(p.Turn()) {
			t.Fatalf("%s: SetTurn refused the seat to move", p.Text())
		}
		if q != p {
			t.Fatalf("%s: SetTurn of the seat to move changed the position", p.Text())
		}
		for _, m := range p.LegalMoves(nil) {
			a, b := p, q
			a.Play(m)
			b.Play(m)
			if a != b {
				t.Fatalf("%s: %s plays differently after SetTurn", p.Text(), MoveText(p.Turn(), m))
			}
		}
	}
}

func TestSetTurnAgreesWithThatSeatToMove(t *testing.T) {
	// The same position with another seat to move, written out and parsed,
	// must give the same moves and the same positions after them.
	n := 0
	for _, p := range randomPositions(t, 20, 120) {
		for seat := range 4 {
			if seat == p.Turn() {
				continue
			}
			q := p
			if !q.SetTurn(seat) {
				if p.Live(seat) && p.checks == 0 {
					t.Fatalf("%s: SetTurn(%d) refused", p.Text(), seat)
				}
				continue
			}
			text := q.Text()
			r, err := ParsePosition(text)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			r.ply = q.ply
			if !samePosition(r, q) {
				t.Fatalf("%s: SetTurn differs from the parsed position:\n%+v\n%+v", text, q, r)
			}
			mq, mr := q.LegalMoves(nil), r.LegalMoves(nil)
			if !slices.Equal(mq, mr) {
				t.Fatalf("%s: %d moves after SetTurn, %d parsed", text, len(mq), len(mr))
			}
			for _, m := range mq {
				a, b := q, r
				a.Play(m)
				b.Play(m)
				if !samePosition(a, b) {
					t.Fatalf("%s: %s plays differently", text, MoveText(seat, m))
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no out-of-turn move was tried")
	}
}

func TestSetTurnRefusesWhatTheRulesCannotReach(t *testing.T) {
	// West is in check from South's rook: only West, whom check priority
	// chose, may move.
	p, err := ParsePosition(layout("5i=Ks 9e=Kw 5a=Kn 1a=Ke 8e=Rs", "w - - singles,two_mates,mater 1"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.InCheck(1) {
		t.Fatal("the test position is wrong: West is not in check")
	}
	for _, seat := range []int{0, 2, 3, -1, 4} {
		q := p
		if q.SetTurn(seat) || q != p {
			t.Errorf("SetTurn(%d) accepted with West in check", seat)
		}
	}
	if q := p; !q.SetTurn(1) {
		t.Error("SetTurn(1) refused for the seat in check")
	}
	// A mated seat never moves again, and an ended game has nobody to move.
	p2, err := ParsePosition(layout("5i=Ks 9e=Kw 5a=Kn 1e=~Ke", "s - es singles,two_mates,mater 1"))
	if err != nil {
		t.Fatal(err)
	}
	if q := p2; q.SetTurn(3) {
		t.Error("SetTurn gave the move to a mated seat")
	}
	if q := p2; !q.SetTurn(2) || q.Turn() != 2 {
		t.Error("SetTurn(2) refused for a live seat")
	}
	p2.turn = -1
	if q := p2; q.SetTurn(0) {
		t.Error("SetTurn gave the move in an ended game")
	}
}
