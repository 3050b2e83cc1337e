package tictactoe_test

import (
	"context"
	"slices"
	"testing"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/examples/tictactoe"
	"github.com/banmen/banmen/sdk/sdktest"
)

// TestConformance is the one test every variant must have.
func TestConformance(t *testing.T) {
	sdktest.Run(t, tictactoe.Variant{})
}

// play plays moves from the start, alternating X and O, and fails on a
// rejection.
func play(t *testing.T, moves ...sdk.Move) (sdk.State, sdk.View) {
	t.Helper()
	v := tictactoe.Variant{}
	s, view, err := v.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range moves {
		if s, view, err = v.Play(s, sdk.Seat(i%2), m); err != nil {
			t.Fatalf("move %d %q: %v", i+1, m, err)
		}
	}
	return s, view
}

func TestRules(t *testing.T) {
	tests := []struct {
		name     string
		moves    []sdk.Move
		status   sdk.Status
		winners  []sdk.Seat
		reason   string
		position string
	}{
		{"start", nil, sdk.Playing, nil, "", ".../.../... x"},
		{"centre", []sdk.Move{"b2"}, sdk.Playing, nil, "", ".../.x./... o"},
		{"X wins the top row", []sdk.Move{"a3", "a1", "b3", "b1", "c3"}, sdk.Over, []sdk.Seat{0}, "result.three_in_row", "xxx/.../oo. o"},
		{"O wins a diagonal", []sdk.Move{"a3", "c3", "b3", "b2", "c2", "a1"}, sdk.Over, []sdk.Seat{1}, "result.three_in_row", "xxo/.ox/o.. x"},
		{"draw", []sdk.Move{"b2", "a1", "c1", "a3", "a2", "c2", "b3", "b1", "c3"}, sdk.Over, nil, "result.draw", "oxx/xxo/oox o"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, v := play(t, tt.moves...)
			if v.Status != tt.status || v.Position != tt.position {
				t.Errorf("status %s, position %q; want %s, %q", v.Status, v.Position, tt.status, tt.position)
			}
			if tt.status == sdk.Over && (v.Result == nil || v.Result.Reason != tt.reason || len(v.Result.Winners) != len(tt.winners) ||
				(len(tt.winners) == 1 && v.Result.Winners[0] != tt.winners[0])) {
				t.Errorf("result %+v; want winners %v, reason %s", v.Result, tt.winners, tt.reason)
			}
		})
	}
}

func TestPlayRejects(t *testing.T) {
	v := tictactoe.Variant{}
	s, _ := play(t, "b2")
	won, _ := play(t, "a3", "a1", "b3", "b1", "c3")
	tests := []struct {
		name  string
		state sdk.State
		seat  sdk.Seat
		move  sdk.Move
		code  string
	}{
		{"taken", s, 1, "b2", sdk.CodeIllegalMove},
		{"not your turn", s, 0, "a1", sdk.CodeNotYourTurn},
		{"no such seat", s, 2, "a1", sdk.CodeNotYourTurn},
		{"off the board", s, 1, "d4", sdk.CodeBadMove},
		{"upper case", s, 1, "A1", sdk.CodeBadMove},
		{"padded", s, 1, " a1", sdk.CodeBadMove},
		{"after the end", won, 1, "a2", sdk.CodeGameOver},
		{"resign after the end", won, 1, sdk.Resign, sdk.CodeGameOver},
		{"garbage state", sdk.State("BNM junk"), 0, "a1", sdk.CodeBadState},
		{"another game's state", sdk.SealState("chess", 1, nil), 0, "a1", sdk.CodeBadState},
		{"a cell twice", sdk.SealState(tictactoe.ID, 1, []byte{4, 4}), 0, "a1", sdk.CodeBadState},
		{"a move after a win", sdk.SealState(tictactoe.ID, 1, []byte{0, 6, 1, 7, 2, 3}), 0, "a1", sdk.CodeBadState},
		{"a move after resigning", sdk.SealState(tictactoe.ID, 1, []byte{10, 4}), 0, "a1", sdk.CodeBadState},
		{"a future version", sdk.SealState(tictactoe.ID, 2, nil), 0, "a1", sdk.CodeBadState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := v.Play(tt.state, tt.seat, tt.move)
			if re, ok := sdk.AsRuleError(err); !ok || re.Code != tt.code {
				t.Errorf("Play(seat %d, %q) = %v; want code %s", tt.seat, tt.move, err, tt.code)
			}
		})
	}
}

func TestResignAndNotation(t *testing.T) {
	v := tictactoe.Variant{}
	s, _ := play(t, "b2", "a1")
	s, view, err := v.Play(s, 1, sdk.Resign) // O resigns while X is to move
	if err != nil {
		t.Fatal(err)
	}
	if view.Status != sdk.Over || view.Result.Reason != "result.resignation" || view.Result.Winners[0] != 0 {
		t.Fatalf("after O resigned: %+v", view.Result)
	}
	text, err := v.Export(s, "moves")
	if want := "b2 a1 o:resign"; text != want || err != nil {
		t.Fatalf("Export = %q, %v; want %q", text, err, want)
	}
	_, iv, err := v.Import("moves", text)
	if err != nil || iv.Status != sdk.Over || iv.Result.Reason != "result.resignation" || len(iv.History) != 3 {
		t.Fatalf("Import(%q) = %+v, %v", text, iv, err)
	}
	for _, bad := range []string{"b2 b2", "b2 z9", "a1 resign", "x:resign b2", "\x00"} {
		if _, _, err := v.Import("moves", bad); err == nil {
			t.Errorf("Import(%q) accepted", bad)
		}
	}
}

func TestSuggest(t *testing.T) {
	v := tictactoe.Variant{}
	ctx := context.Background()
	tests := []struct {
		name  string
		moves []sdk.Move
		level sdk.Level
		want  sdk.Move
	}{
		{"medium completes its row", []sdk.Move{"a3", "a1", "b3", "b1"}, sdk.Medium, "c3"},
		{"medium without a threat", []sdk.Move{"a3", "b2", "c1"}, sdk.Medium, ""}, // anything legal
		{"medium blocks a row", []sdk.Move{"a3", "a1", "b3"}, sdk.Medium, "c3"},
		{"hard takes the centre", nil, sdk.Hard, "b2"},
		{"hard wins at once", []sdk.Move{"a3", "a1", "b3", "b1"}, sdk.Hard, "c3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, view := play(t, tt.moves...)
			m, err := v.Suggest(ctx, s, view.ToMove[0], tt.level)
			if err != nil {
				t.Fatal(err)
			}
			if m, err := v.Suggest(ctx, s, 1-view.ToMove[0], tt.level); !isCode(err, sdk.CodeNotYourTurn) {
				t.Errorf("Suggest for the seat not to move = %q, %v; want not_your_turn", m, err)
			}
			if tt.want != "" && m != tt.want {
				t.Errorf("Suggest = %q; want %q", m, tt.want)
			}
			if !slices.ContainsFunc(view.Legal, func(l sdk.LegalMove) bool { return l.Move == m }) {
				t.Errorf("Suggest = %q, not a legal move", m)
			}
		})
	}

	// Hard never loses, whatever the opponent plays, with either seat.
	for hard := range sdk.Seat(2) {
		s, view, _ := v.Start(nil)
		if lost := hardLoses(t, s, view, hard); lost != nil {
			t.Errorf("hard as seat %d loses after %v", hard, lost)
		}
	}
}

// hardLoses plays Hard for seat hard against every reply of the opponent and
// returns a history in which Hard loses, or nil.
func hardLoses(t *testing.T, s sdk.State, view sdk.View, hard sdk.Seat) []sdk.PlayedMove {
	v := tictactoe.Variant{}
	if view.Status == sdk.Over {
		if slices.Contains(view.Result.Winners, 1-hard) {
			return view.History
		}
		return nil
	}
	moves := view.Legal
	if view.ToMove[0] == hard {
		m, err := v.Suggest(context.Background(), s, hard, sdk.Hard)
		if err != nil {
			t.Fatal(err)
		}
		moves = []sdk.LegalMove{{Seat: hard, Move: m}}
	}
	for _, m := range moves {
		ns, nv, err := v.Play(s, m.Seat, m.Move)
		if err != nil {
			t.Fatalf("%v then %q: %v", view.History, m.Move, err)
		}
		if lost := hardLoses(t, ns, nv, hard); lost != nil {
			return lost
		}
	}
	return nil
}

// bruteForce counts the move sequences of depth marks from board in which
// nobody has three in a row before the last mark: the definition of perft,
// written out independently of the package.
func bruteForce(board [9]int, player, depth int) uint64 {
	if depth == 0 {
		return 1
	}
	for _, l := range [][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}} {
		if board[l[0]] != 0 && board[l[0]] == board[l[1]] && board[l[1]] == board[l[2]] {
			return 0
		}
	}
	var n uint64
	for c := range board {
		if board[c] == 0 {
			board[c] = player
			n += bruteForce(board, 3-player, depth-1)
			board[c] = 0
		}
	}
	return n
}

func TestPerft(t *testing.T) {
	v := tictactoe.Variant{}
	ctx := context.Background()
	start, _, _ := v.Start(nil)
	// Depths 1–5 end no game early: 9, 9·8, 9·8·7, ... placements.
	known := map[int]uint64{1: 9, 2: 72, 3: 504, 4: 3024, 5: 15120}
	for depth := 0; depth <= 9; depth++ {
		want := bruteForce([9]int{}, 1, depth)
		if k, ok := known[depth]; ok && k != want {
			t.Fatalf("brute force gives %d at depth %d, the known count is %d", want, depth, k)
		}
		got, err := v.Perft(ctx, "", depth)
		if err != nil || got != want {
			t.Errorf("Perft(start, %d) = %d, %v; want %d", depth, got, err, want)
		}
		if depth <= 4 { // through Play, every node costs a state round trip
			if n, err := sdktest.Perft(v, start, depth); err != nil || n != want {
				t.Errorf("sdktest.Perft(start, %d) = %d, %v; want %d", depth, n, err, want)
			}
		}
	}

	// From a position: O to move can win at once (a1) or not.
	got, err := v.Perft(ctx, "xx./oo./x.. o", 2)
	if want := bruteForce([9]int{1, 1, 0, 2, 2, 0, 1, 0, 0}, 2, 2); err != nil || got != want {
		t.Errorf("Perft(xx./oo./x.. o, 2) = %d, %v; want %d", got, err, want)
	}
	for _, bad := range []string{"xxx/ooo/... x", "xx./.../... x", ".../.../...", "x../.../... x"} {
		if _, err := v.Perft(ctx, bad, 1); err == nil {
			t.Errorf("Perft(%q) accepted an impossible position", bad)
		}
	}
}

// FuzzImport: no text makes Import panic, and what it accepts exports back
// to a text that imports to the same game.
func FuzzImport(f *testing.F) {
	for _, s := range []string{"", "b2", "b2 a1 c3", "a3 a1 b3 b1 c3", "b2 o:resign", "b2 b2", "\x00"} {
		f.Add(s)
	}
	v := tictactoe.Variant{}
	f.Fuzz(func(t *testing.T, text string) {
		s, view, err := v.Import("moves", text)
		if err != nil {
			return
		}
		out, err := v.Export(s, "moves")
		if err != nil {
			t.Fatal(err)
		}
		_, again, err := v.Import("moves", out)
		if err != nil || again.Position != view.Position || len(again.History) != len(view.History) {
			t.Fatalf("%q exports as %q, which imports to %+v, %v", text, out, again, err)
		}
	})
}

// FuzzState: no payload makes View panic, even well sealed, and a state
// that View accepts describes a sound game.
func FuzzState(f *testing.F) {
	for _, p := range []string{"", "\x04\x00\x08", "\x04\x04", "\x00\x06\x01\x07\x02", "\x0a"} {
		f.Add([]byte(p))
	}
	v := tictactoe.Variant{}
	d := v.Describe()
	f.Fuzz(func(t *testing.T, payload []byte) {
		view, err := v.View(sdk.SealState(tictactoe.ID, 1, payload))
		if err != nil {
			return
		}
		if err := sdktest.CheckView(d, view); err != nil {
			t.Fatal(err)
		}
	})
}

// isCode reports whether err is a *sdk.RuleError with code.
func isCode(err error, code string) bool {
	re, ok := sdk.AsRuleError(err)
	return ok && re.Code == code
}
