package rules

import (
	"slices"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// Scenario tests: one short position per rule and per decision of SPEC §4.

const singles = "singles,two_mates,mater 1"

func TestSetupAndFacing(t *testing.T) {
	p := startPosition(Rules{}, 0)
	if got := p.Text(); got != StartText {
		t.Fatalf("start text\n got %s\nwant %s", got, StartText)
	}
	for _, c := range []struct {
		sq          string
		kind, owner int
		facing      int
	}{
		{"5i", kindKing, 0, 0}, {"5h", kindRook, 0, 0}, {"5g", kindPawn, 0, 0}, {"7i", kindSilver, 0, 0},
		{"9e", kindKing, 1, 1}, {"8e", kindRook, 1, 1}, {"7e", kindPawn, 1, 1}, {"9c", kindSilver, 1, 1},
		{"5a", kindKing, 2, 2}, {"5b", kindRook, 2, 2}, {"5c", kindPawn, 2, 2}, {"4a", kindGold, 2, 2},
		{"1e", kindKing, 3, 3}, {"2e", kindRook, 3, 3}, {"3e", kindPawn, 3, 3}, {"1g", kindSilver, 3, 3},
	} {
		pc := p.board[sq(c.sq)]
		if pc.kind() != c.kind || pc.owner() != c.owner || pc.facing() != c.facing {
			t.Errorf("%s: kind %d owner %d facing %d, want %d %d %d", c.sq, pc.kind(), pc.owner(), pc.facing(), c.kind, c.owner, c.facing)
		}
	}
	// Every seat has the same nine moves at the start, turned to its edge.
	want := map[int][]string{
		0: {"S:3i2h", "S:3i3h", "S:4h4g", "S:4i3h", "S:5g5f", "S:6h6g", "S:6i7h", "S:7i7h", "S:7i8h"},
		1: {"W:7e6e", "W:8d7d", "W:8f7f", "W:9c8b", "W:9c8c", "W:9d8c", "W:9f8g", "W:9g8g", "W:9g8h"},
	}
	g := newGame(defaultSettings(), p)
	for seat := 0; seat < 2; seat++ {
		if got := legalTexts(g); !slices.Equal(got, want[seat]) {
			t.Errorf("seat %d moves %v, want %v", seat, got, want[seat])
		}
		playAll(t, g, want[seat][0])
	}
}

func TestPieceMovesFollowFacing(t *testing.T) {
	// A gold of each seat in the open: its six steps turn with its facing.
	for _, c := range []struct {
		tok  string
		want []string // destinations of the gold at 5e
	}{
		{"Gs", []string{"4d", "4e", "5d", "5f", "6d", "6e"}},
		{"Gw", []string{"4d", "4e", "4f", "5d", "5f", "6e"}},
		{"Gn", []string{"4e", "4f", "5d", "5f", "6e", "6f"}},
		{"Ge", []string{"4e", "5d", "5f", "6d", "6e", "6f"}},
	} {
		seat := map[byte]int{'s': 0, 'w': 1, 'n': 2, 'e': 3}[c.tok[1]]
		text := layout("5i=Ks 9a=Kw 5a=Kn 1i=Ke 5e="+c.tok, string(seatLower[seat])+" - - "+singles)
		g := startGame(t, text)
		var got []string
		for _, m := range g.legal() {
			if m.from() == sq("5e") {
				got = append(got, squareText(m.to()))
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s at 5e goes to %v, want %v", c.tok, got, c.want)
		}
	}
}

func TestCheckPriorityOneChecked(t *testing.T) {
	// South's rook checks North: North answers at once, West's turn is lost,
	// and play goes on clockwise from North (East).
	g := startGame(t, layout("5i=Ks 4d=Rs 9i=Kw 5a=Kn 1i=Ke", "s - - "+singles))
	playAll(t, g, "S:4d5d")
	wantTurn(t, g, "N")
	if !g.priority {
		t.Error("check priority not reported")
	}
	v := g.view()
	if !slices.Equal(v.InCheck, []sdk.Seat{2}) || !slices.Contains(v.Notices, "notice.check_priority") {
		t.Errorf("in check %v, notices %v", v.InCheck, v.Notices)
	}
	playAll(t, g, "N:5a4a")
	wantTurn(t, g, "E")
	if g.priority {
		t.Error("plain turn reported as check priority")
	}
}

func TestCheckPriorityTwoChecked(t *testing.T) {
	// The rook checks West and North at once along rank a: West, the nearer
	// clockwise from South, answers first, then North, then East.
	g := startGame(t, layout("5i=Ks 5e=Rs 9a=Kw 1a=Kn 1i=Ke", "s - - "+singles))
	playAll(t, g, "S:5e5a")
	if v := g.view(); !slices.Equal(v.InCheck, []sdk.Seat{1, 2}) {
		t.Fatalf("in check %v, want [1 2]", v.InCheck)
	}
	wantTurn(t, g, "W")
	playAll(t, g, "W:9a9b")
	wantTurn(t, g, "N")
	playAll(t, g, "N:1a1b")
	wantTurn(t, g, "E")
}

func TestDiscoveredCheckByAnotherPlayersPiece(t *testing.T) {
	// West's gold steps off rank e and uncovers South's rook on East: East
	// answers before North.
	g := startGame(t, layout("5i=Ks 5e=Rs 3e=Gw 9a=Kw 4a=Kn 1e=Ke", "w - - "+singles))
	playAll(t, g, "W:3e3d")
	wantTurn(t, g, "E")
	playAll(t, g, "E:1e1d")
	wantTurn(t, g, "S")
}

// discoveredMate: West's gold uncovers North's rook on East's cornered king.
const discoveredMate = "6a=Rn 3a=Gw 1a=Ke 1b=Pe 2b=Pe 5c=Kn 9e=Kw"

func TestMateCreditedToMoverAndTransfer(t *testing.T) {
	// North's rook gives the check, but West's move came last: the mate is
	// West's, and East's pawns become West's, still facing left.
	g := startGame(t, layout(discoveredMate+" 5i=Ks 5g=Ps", "w - - "+singles))
	playAll(t, g, "W:3a3b")
	if g.pos.live(3) || g.pos.Score(1) != 1 || g.pos.mates[0] != (mateRecord{3, 1}) {
		t.Fatalf("mates %v at %s", g.pos.mates[:g.pos.nmates], g.pos.Text())
	}
	// The turn passes on from the mated seat: South, not North.
	wantTurn(t, g, "S")
	for _, s := range []string{"1b", "2b"} {
		if pc := g.pos.board[sq(s)]; pc.owner() != 1 || pc.facing() != 3 || pc.kind() != kindPawn {
			t.Errorf("%s after the mate: owner %d facing %d", s, pc.owner(), pc.facing())
		}
	}
	if pc := g.pos.board[sq("1a")]; !pc.flipped() || pc.owner() != 3 {
		t.Errorf("East's king is not lying flipped: %v", pc)
	}
	v := g.view()
	if !slices.Equal(v.Eliminated, []sdk.Seat{3}) || !slices.Equal(v.Score, []int{0, 1, 0, 0}) ||
		!v.Board[sq("1a")].Flipped || v.Board[sq("2b")].Owner != 1 || v.Board[sq("2b")].Facing != 3 {
		t.Errorf("view: eliminated %v score %v cells %+v %+v", v.Eliminated, v.Score, v.Board[sq("1a")], v.Board[sq("2b")])
	}
	if !slices.Contains(v.Notices, "notice.mate") {
		t.Errorf("notices %v", v.Notices)
	}
}

func TestMateChainEndsGame(t *testing.T) {
	// After East's mate the turn passes to South, who has no legal move
	// either: a second mate, also West's, and the game ends.
	g := startGame(t, layout(discoveredMate+" 9i=Ks 8g=Gn 7h=Gn", "w - - "+singles))
	playAll(t, g, "W:3a3b")
	wantTurn(t, g, "-")
	res := g.result()
	if res == nil || res.Reason != reasonTwoMates || !slices.Equal(res.Places, []int{3, 1, 2, 4}) || !slices.Equal(res.Winners, []sdk.Seat{1}) {
		t.Fatalf("result %+v", res)
	}
	if v := g.view(); v.Status != sdk.Over || len(v.Legal) != 0 || len(v.ToMove) != 0 {
		t.Errorf("view of the ended game: %s, %d legal, to move %v", v.Status, len(v.Legal), v.ToMove)
	}
	rejects(t, g, "S:9i9h", sdk.CodeGameOver)
}

func TestStalemateIsMate(t *testing.T) {
	// West is not in check but has no legal move once South's gold steps up.
	g := startGame(t, layout("5i=Ks 8c=Gs 7c=Gs 9a=Kw 5a=Kn 1i=Ke", "s - - "+singles))
	playAll(t, g, "S:7c7b")
	if g.pos.live(1) || g.pos.Score(0) != 1 {
		t.Fatalf("West not mated: %s", g.pos.Text())
	}
	wantTurn(t, g, "N")
}

func TestContactMateTransfersHand(t *testing.T) {
	// East holds a rook, but no drop answers a contact check: mated, and the
	// rook goes to South's hand; East's silver becomes South's, facing left,
	// and promotes in the files 9-7, not in South's own far ranks.
	g := startGame(t, layout("5i=Ks 2c=Gs 2h=Rs 9e=Kw 5a=Kn 1a=Ke 6e=Se", "s Re - "+singles))
	playAll(t, g, "S:2c2b")
	if g.pos.live(3) || g.pos.hands[0][kindRook] != 1 || g.pos.hands[3] != [numKinds]uint8{} {
		t.Fatalf("after the mate: %s", g.pos.Text())
	}
	if pc := g.pos.board[sq("6e")]; pc.owner() != 0 || pc.facing() != 3 {
		t.Errorf("East's silver: owner %d facing %d", pc.owner(), pc.facing())
	}
	wantTurn(t, g, "S") // East's successor
	for _, c := range []struct {
		move string
		want bool
	}{{"S:6e7e+", true}, {"S:6e7e", true}, {"S:6e7d+", true}, {"S:6e5d", true}, {"S:6e5d+", false}} {
		if got := hasLegal(g, c.move); got != c.want {
			t.Errorf("%s legal = %v, want %v", c.move, got, c.want)
		}
	}
	if !strings.Contains(g.pos.Text(), "Ss<") {
		t.Errorf("the inherited silver's facing is not in the text: %s", g.pos.Text())
	}
}

func TestInheritedPiecesKeepTheirZone(t *testing.T) {
	// West owns its own silver (facing right) and an inherited one facing
	// left: each promotes in the far ranks of its own facing.
	g := startGame(t, layout("5i=Ks 9a=Kw 5a=Kn 1i=Ke 4e=Sw 6e=Sw<", "w - - "+singles))
	legal := legalTexts(g)
	for _, c := range []struct {
		move string
		want bool
	}{
		{"W:4e3e", true}, {"W:4e3e+", true}, // own silver entering files 3-1
		{"W:6e7e", true}, {"W:6e7e+", true}, // inherited silver entering files 9-7
		{"W:6e5d", true}, {"W:6e5d+", false}, // not a zone of facing left
		{"W:4e3d+", true}, {"W:4e5d+", false},
	} {
		if got := slices.Contains(legal, c.move); got != c.want {
			t.Errorf("%s legal = %v, want %v", c.move, got, c.want)
		}
	}
}

func TestPawnMustPromoteOnLastRank(t *testing.T) {
	g := startGame(t, layout("5i=Ks 9a=Kw 1a=Kn 1i=Ke 5b=Ps 3c=Ps", "s - - "+singles))
	if hasLegal(g, "S:5b5a") || !hasLegal(g, "S:5b5a+") || !hasLegal(g, "S:3c3b") || !hasLegal(g, "S:3c3b+") {
		t.Errorf("pawn moves %v", legalTexts(g))
	}
	// A West pawn (facing right) must promote on file 1.
	g = startGame(t, layout("5i=Ks 9a=Kw 1a=Kn 1i=Ke 2e=Pw", "w - - "+singles))
	if hasLegal(g, "W:2e1e") || !hasLegal(g, "W:2e1e+") {
		t.Errorf("west pawn moves %v", legalTexts(g))
	}
}

func TestCaptureDemotesIntoHand(t *testing.T) {
	g := startGame(t, layout("5i=Ks 5h=Rs 5e=+Pn 9a=Kw 1a=Kn 1i=Ke", "s - - "+singles))
	playAll(t, g, "S:5h5e")
	if g.pos.hands[0][kindPawn] != 1 || g.pos.board[sq("5e")] != makePiece(kindRook, 0, 0, false) {
		t.Fatalf("after the capture: %s", g.pos.Text())
	}
	// A dropped piece faces its dropper's way.
	g = startGame(t, layout("5i=Ks 9a=Kw 1a=Kn 1i=Ke", "w Sw - "+singles))
	playAll(t, g, "W:S*5e")
	if pc := g.pos.board[sq("5e")]; pc.owner() != 1 || pc.facing() != 1 {
		t.Errorf("dropped silver: owner %d facing %d", pc.owner(), pc.facing())
	}
}

func TestForbiddenDrops(t *testing.T) {
	// South holds a pawn; its own upward pawn stands on file 3, an inherited
	// pawn facing right stands on file 4; West's king lies flipped on 7e.
	g := startGame(t, layout("5i=Ks 3g=Ps 4g=Ps> 7e=~Kw 5a=Kn 1i=Ke", "s Ps ws "+singles))
	for _, c := range []struct {
		move, why string
		want      bool
	}{
		{"S:P*3e", "nifu: an own upward pawn on file 3", false},
		{"S:P*4e", "the pawn on file 4 faces another way", true},
		{"S:P*6c", "an ordinary drop", true},
		{"S:P*6a", "a pawn with no move on the last rank", false},
		{"S:P*7f", "straight in front of a flipped king", false},
		{"S:P*8f", "beside the flipped king", true},
		{"S:P*7d", "behind the flipped king", true},
	} {
		if got := hasLegal(g, c.move); got != c.want {
			t.Errorf("%s (%s): legal %v, want %v", c.move, c.why, got, c.want)
		}
	}
	// Nifu counts along each facing's files: for West, the ranks.
	g = startGame(t, layout("5i=Ks 9a=Kw 5a=Kn 1i=Ke 7e=Pw", "w Pw - "+singles))
	if hasLegal(g, "W:P*3e") || !hasLegal(g, "W:P*7d") || hasLegal(g, "W:P*1c") {
		t.Errorf("west pawn drops: %v", legalTexts(g))
	}
}

func TestPawnDropMate(t *testing.T) {
	// The pawn dropped on 5b would mate North: forbidden. The same mate by a
	// pawn pushed from 5c is legal.
	pieces := "5i=Ks 4c=Ss 6c=Ss 4a=Pn 6a=Pn 5a=Kn 9e=Kw 1e=Ke"
	g := startGame(t, layout(pieces, "s Ps - "+singles))
	if hasLegal(g, "S:P*5b") {
		t.Error("pawn-drop mate listed")
	}
	rejects(t, g, "S:P*5b", sdk.CodeIllegalMove)
	if !hasLegal(g, "S:P*5d") {
		t.Error("an ordinary pawn drop missing")
	}
	g = startGame(t, layout(pieces+" 5c=Ps", "s - - "+singles))
	playAll(t, g, "S:5c5b")
	if g.pos.live(2) {
		t.Fatal("the pushed pawn did not mate")
	}
	// A pawn-drop check that is not mate is fine.
	g = startGame(t, layout("5i=Ks 4c=Ss 4a=Pn 5a=Kn 9e=Kw 1e=Ke", "s Ps - "+singles))
	if !hasLegal(g, "S:P*5b") {
		t.Error("a pawn-drop check with an escape is missing")
	}
}

func TestOwnKingMayNotBeLeftInCheck(t *testing.T) {
	g := startGame(t, layout("5i=Ks 5h=Gs 5a=Rn 9a=Kw 1a=Kn 1i=Ke", "s - - "+singles))
	if hasLegal(g, "S:5h4g") || !hasLegal(g, "S:5h5g") {
		t.Errorf("pinned gold moves %v", legalTexts(g))
	}
	rejects(t, g, "S:5h4g", sdk.CodeIllegalMove)
	// Kings are never captured, even when attacked by the seat to move.
	g = startGame(t, layout("5i=Ks 5e=Rs 9e=Kw 1a=Kn 1i=Ke", "s - - "+singles))
	for _, m := range legalTexts(g) {
		if m == "S:5e9e" {
			t.Error("a king capture is listed")
		}
	}
}

func TestFlippedKingIsAnObstacle(t *testing.T) {
	// West lies flipped on 5e between South's rook and North's king: no
	// check, the rook can neither pass nor take it, and the flipped king
	// attacks nothing (South's king stands next to it).
	g := startGame(t, layout("5f=Ks 5h=Rs 5e=~Kw 5a=Kn 1i=Ke", "s Rs ws "+singles))
	if v := g.view(); len(v.InCheck) != 0 {
		t.Errorf("in check %v", v.InCheck)
	}
	for _, m := range legalTexts(g) {
		if m == "S:5h5e" || m == "S:5h5d" || m == "S:5f5e" || m == "S:5e5d" {
			t.Errorf("%s is listed", m)
		}
	}
	if !hasLegal(g, "S:5f4e") {
		t.Error("the king may stand beside the flipped king")
	}
}

func TestRepetitionEndsTheGame(t *testing.T) {
	// Four golds shuffle: the start position comes back every 8 moves, and
	// its fourth occurrence ends the game. South has a pawn more: first.
	text := layout("5i=Ks 6i=Gs 3g=Ps 9a=Kw 9b=Gw 5a=Kn 5b=Gn 1i=Ke 1h=Ge", "s - - "+singles)
	g := startGame(t, text)
	cycle := []string{"S:6i6h", "W:9b8b", "N:5b5c", "E:1h2h", "S:6h6i", "W:8b9b", "N:5c5b", "E:2h1h"}
	for range 2 {
		playAll(t, g, cycle...)
	}
	playAll(t, g, cycle[:7]...)
	if g.end != "" {
		t.Fatal("ended too early")
	}
	playAll(t, g, cycle[7])
	res := g.result()
	if res == nil || res.Reason != reasonRepetition || !slices.Equal(res.Places, []int{1, 2, 2, 2}) {
		t.Fatalf("result %+v", res)
	}
}

func TestPerpetualCheckerMustAvoidRepetition(t *testing.T) {
	// South's rook checks North on every move; North's king steps aside,
	// East shuffles, West's turns are lost. South may not make the move that
	// repeats the position a fourth time.
	text := layout("5i=Ks 5e=Rs 9g=Kw 5a=Kn 1g=Ke 2i=Ge", "n - - "+singles)
	g := startGame(t, text)
	cycle := []string{"N:5a4a", "E:2i2h", "S:5e4e", "N:4a5a", "E:2h2i", "S:4e5e"}
	for range 2 {
		playAll(t, g, cycle...)
	}
	playAll(t, g, cycle[:5]...)
	if hasLegal(g, "S:4e5e") {
		t.Error("the perpetual checker's repeating move is listed")
	}
	rejects(t, g, "S:4e5e", codePerpetualCheck)
	if !hasLegal(g, "S:4e3e") {
		t.Error("another move is missing")
	}
	// North, who only answered checks, is not bound: a position repeated by
	// a non-checking move ends the game instead.
	g = startGame(t, layout("5i=Ks 5e=Rs 9g=Kw 4a=Kn 1g=Ke 2i=Ge", "e - - "+singles))
	cycle = []string{"E:2i2h", "S:5e4e", "N:4a5a", "E:2h2i", "S:4e5e", "N:5a4a"}
	for range 3 {
		playAll(t, g, cycle...)
	}
	if g.end != reasonRepetition {
		t.Fatalf("end %q, want repetition", g.end)
	}
}

func TestPlacesTieBreaks(t *testing.T) {
	// Ended positions (turn "-") ranked by mates, pieces (with the flipped
	// kings mated), the later last mate, and full equality sharing a place.
	for _, c := range []struct {
		name, pieces, hands, mates string
		want                       []int
	}{
		{"mates first", "5i=Ks 9e=~Kw 5a=Kn 1e=~Ke 2b=Pn 3b=Pn", "-", "ws,es", []int{1, 4, 2, 3}},
		{"then pieces", "5i=Ks 9e=~Kw 5a=Kn 1e=~Ke 2b=Pn", "-", "ws,en", []int{2, 4, 1, 3}},
		{"hand pieces count, tie", "5i=Ks 9e=~Kw 5a=Kn 1e=~Ke 2b=Pn", "Ps", "ws,en", []int{2, 4, 1, 3}},
		{"hand pieces count", "5i=Ks 9e=~Kw 5a=Kn 1e=~Ke 2b=Pn", "2Ps", "ws,en", []int{1, 4, 2, 3}},
		{"then the later last mate", "5i=Ks 9e=~Kw 5a=Kn 1e=~Ke", "-", "ws,en", []int{2, 4, 1, 3}},
		{"the later last mate, other order", "5i=Ks 9e=~Kw 5a=Kn 1e=~Ke", "-", "en,ws", []int{1, 3, 2, 4}},
		{"full equality shares", "5i=Ks 9e=~Kw 5a=Kn 1e=~Ke", "-", "wx,ex", []int{1, 4, 1, 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePosition(layout(c.pieces, "- "+c.hands+" "+c.mates+" "+singles))
			if err != nil {
				t.Fatal(err)
			}
			g := newGame(defaultSettings(), p)
			res := g.result()
			if res == nil || !slices.Equal(res.Places, c.want) {
				t.Fatalf("places %+v, want %v", res, c.want)
			}
		})
	}
}
