package wire

import (
	"bytes"
	"reflect"
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

func checkDecodeGame(t *testing.T, b []byte) {
	t.Helper()
	wantSt, want, wantRule, ok := referenceGame(b)
	st, v, rule, err := DecodeGame(b)
	if (err == nil) != ok {
		t.Fatalf("DecodeGame error %v, proto.Unmarshal+ToView ok=%v", err, ok)
	}
	if !ok {
		return
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

func FuzzDecodeGame(f *testing.F) {
	for _, b := range gameSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDecodeGame(t, b) })
}

// BenchmarkDecodeGame is BenchmarkUnpackView's answer read by DecodeGame,
// as the host reads a Play's answer on the channel.
func BenchmarkDecodeGame(b *testing.B) {
	msg := shogiLikeAnswer(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := DecodeGame(msg); err != nil {
			b.Fatal(err)
		}
	}
}
