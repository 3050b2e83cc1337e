package wire

import (
	"bytes"
	"reflect"
	"slices"
	"testing"

	"github.com/banmen/banmen/sdk"
	"google.golang.org/protobuf/proto"
)

// referenceGame is what DecodeGame must equal: proto.Unmarshal, then the
// host's own reading of the response (a rule error, or ToView).
func referenceGame(b []byte) (st sdk.State, v sdk.View, rule error, ok bool) {
	var r GameResponse
	if proto.Unmarshal(b, &r) != nil {
		return nil, sdk.View{}, nil, false
	}
	if r.Error != nil {
		return nil, sdk.View{}, ToRuleError(r.Error), true
	}
	v, err := ToView(r.View)
	if err != nil {
		return nil, sdk.View{}, nil, false
	}
	return r.State, v, nil, true
}

// junkSpare is a spare View whose arrays hold stale moves and cells, as a
// room's View before last does.
func junkSpare() *sdk.View {
	v := shogiLikeView()
	return &sdk.View{Board: v.Board, Legal: v.Legal}
}

func checkDecodeGame(t *testing.T, b []byte) {
	t.Helper()
	wantSt, want, wantRule, ok := referenceGame(b)
	for _, spare := range []*sdk.View{nil, junkSpare(), {}} {
		st, v, rule, err := DecodeGame(b, spare)
		if (err == nil) != ok {
			t.Fatalf("DecodeGame error %v, proto.Unmarshal+ToView ok=%v", err, ok)
		}
		if !ok {
			continue
		}
		if !bytes.Equal(st, wantSt) || (st == nil) != (wantSt == nil) {
			t.Fatalf("state %q, want %q", st, wantSt)
		}
		if !reflect.DeepEqual(rule, wantRule) {
			t.Fatalf("rule error %#v, want %#v", rule, wantRule)
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("view\n%#v\nwant\n%#v", v, want)
		}
	}
	checkDecodeGameLegal(t, b, wantSt, want, wantRule, ok)
}

// checkDecodeGameLegal: DecodeGamePacked keeping the legal moves answers
// as DecodeGame, with the legal moves packed instead of in the View, and
// EachLegal reads them back; keeping the board too, the same with the
// board packed, read by EachCell.
func checkDecodeGameLegal(t *testing.T, b []byte, wantSt sdk.State, want sdk.View, wantRule error, ok bool) {
	t.Helper()
	for _, spare := range []*sdk.View{nil, junkSpare(), {}} {
		st, v, pl, rule, err := DecodeGamePacked(b, spare, Keep{Legal: true})
		legal, n := pl.Legal, pl.NLegal
		if (err == nil) != ok {
			t.Fatalf("DecodeGamePacked (legal moves) error %v, proto.Unmarshal+ToView ok=%v", err, ok)
		}
		if !ok {
			continue
		}
		if !bytes.Equal(st, wantSt) || !reflect.DeepEqual(rule, wantRule) {
			t.Fatalf("state %q, rule %#v; want %q, %#v", st, rule, wantSt, wantRule)
		}
		if rule != nil || want.Legal == nil { // no view
			continue
		}
		var got []sdk.LegalMove
		EachLegal(legal, func(m *sdk.LegalMove) bool { got = append(got, *m); return true })
		if n != len(want.Legal) || len(got) != n || (n > 0 && !reflect.DeepEqual(got, want.Legal)) {
			t.Fatalf("packed legal: %d moves, read %v; want %v", n, got, want.Legal)
		}
		w := want
		w.Legal = nil
		if !reflect.DeepEqual(v, w) {
			t.Fatalf("view\n%#v\nwant\n%#v", v, w)
		}
		// DecodeGamePacked: the same, with the board packed too, and the
		// moves' JSON seen as they are checked.
		var seen []string
		st, v, p, rule, err := DecodeGamePacked(b, spare, Keep{Legal: true, Board: true,
			EachJSON: func(_ sdk.Seat, js []byte) { seen = append(seen, string(js)) }})
		if err != nil || !bytes.Equal(st, wantSt) || rule != nil {
			t.Fatalf("DecodeGamePacked: state %q, rule %v, error %v", st, rule, err)
		}
		var cells []sdk.Cell
		EachCell(p.Board, func(at int, c *sdk.Cell) bool { cells = append(cells, *c); return true })
		if p.NBoard != len(want.Board) || len(cells) != p.NBoard || (p.NBoard > 0 && !reflect.DeepEqual(cells, want.Board)) {
			t.Fatalf("packed board: %d cells, read %v; want %v", p.NBoard, cells, want.Board)
		}
		if p.Legal != legal || p.NLegal != n {
			t.Fatalf("DecodeGamePacked legal %q (%d), with the legal moves alone %q (%d)", p.Legal, p.NLegal, legal, n)
		}
		if wantJSON := marshalEach(want.Legal); !slices.Equal(seen, wantJSON) {
			t.Fatalf("EachJSON saw %q; want %q", seen, wantJSON)
		}
		w.Board = nil
		if !reflect.DeepEqual(v, w) {
			t.Fatalf("DecodeGamePacked view\n%#v\nwant\n%#v", v, w)
		}
	}
}

// gameSeeds are answers as plugins send them (packed or not, with a rule
// error, a finished game, several History entries) and two of them run
// together, which protobuf reads as one message merged from both.
func gameSeeds(t testing.TB) [][]byte {
	v := shogiLikeView()
	over := v
	over.Status, over.Legal = sdk.Over, nil
	over.Result = &sdk.Result{Winners: []sdk.Seat{1}, Places: []int{2, 1}, Reason: "result.checkmate"}
	over.Notices = []string{"notice.check"}
	over.Details = []sdk.KeyValue{{Key: "handicap", Value: "none"}, {Key: "k", Value: ""}}
	over.InCheck, over.Eliminated, over.Score = []sdk.Seat{0}, []sdk.Seat{2}, []int{3, -4}
	over.History = append(over.History, sdk.PlayedMove{Seat: 0, Move: "G*5b", Text: "▲５二金打", Number: 7})
	over.HideLegal = true
	var seeds [][]byte
	add := func(m proto.Message) {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	for _, view := range []sdk.View{v, over, {}} {
		w, err := FromViewPacked(&view)
		if err != nil {
			t.Fatal(err)
		}
		add(&GameResponse{State: sdk.State("state bytes"), View: w})
		add(&GameResponse{View: FromView(&view)})
	}
	add(&GameResponse{Error: &RuleError{Code: "illegal_move", Key: "error.illegal", Message: "no"}, View: FromView(&v)})
	add(&GameResponse{Error: &RuleError{}})
	add(&GameResponse{})
	seeds = append(seeds, append(append([]byte{}, seeds[0]...), seeds[3]...))
	seeds = append(seeds, append(append([]byte{}, seeds[1]...), seeds[0]...))
	return seeds
}

func TestDecodeGameMatchesProtobuf(t *testing.T) {
	for _, b := range gameSeeds(t) {
		checkDecodeGame(t, b)
		// Every prefix: truncated answers are refused alike.
		for i := range b {
			if i%7 == 0 {
				checkDecodeGame(t, b[:i])
			}
		}
	}
}

// TestDecodeGameReusesSpare shows a Play's answer written into the arrays
// of the View before last, and History entries kept apart from the answer.
func TestDecodeGameReusesSpare(t *testing.T) {
	v := shogiLikeView()
	w, err := FromViewPacked(&v)
	if err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(&GameResponse{View: w})
	if err != nil {
		t.Fatal(err)
	}
	spare := junkSpare()
	_, got, _, err := DecodeGame(b, spare)
	if err != nil {
		t.Fatal(err)
	}
	if &got.Board[0] != &spare.Board[0] || &got.Legal[0] != &spare.Legal[0] {
		t.Error("the spare's arrays were not reused")
	}
	if !reflect.DeepEqual(got.Board, v.Board) || !reflect.DeepEqual(got.Legal, v.Legal) {
		t.Error("the reused arrays hold something else than the answer")
	}
	small := &sdk.View{Board: make([]sdk.Cell, 3), Legal: make([]sdk.LegalMove, 2)}
	if _, got, _, err = DecodeGame(b, small); err != nil || len(got.Board) != 81 || &got.Board[0] == &small.Board[0] {
		t.Errorf("a spare too small: %v, %d cells", err, len(got.Board))
	}
}

func FuzzDecodeGame(f *testing.F) {
	for _, b := range gameSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDecodeGame(t, b) })
}

// BenchmarkDecodeGame is BenchmarkUnpackView's answer read by DecodeGame
// into the arrays of the View before last, as a room does.
func BenchmarkDecodeGame(b *testing.B) {
	msg := shogiLikeAnswer(b)
	views := [2]sdk.View{}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_, nv, _, err := DecodeGame(msg, &views[i%2])
		if err != nil {
			b.Fatal(err)
		}
		views[i%2] = nv
		i++
	}
}
