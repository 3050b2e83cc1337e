package wire

import (
	"bytes"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
	"google.golang.org/protobuf/proto"
)

// marshalPacked is what AppendPackedResponse must write: the response as
// serve built and protobuf marshalled it before.
func marshalPacked(st sdk.State, v *sdk.View, board, legal []byte) ([]byte, error) {
	w, err := FromViewPacked(v)
	if err != nil {
		return nil, err
	}
	w.PackedBoard, w.PackedLegal = board, legal
	return proto.Marshal(&GameResponse{State: st, View: w})
}

// TestAppendPackedResponseIsProtobufs: on a View with every field set (so
// a field added to the contract and forgotten here fails), on an empty
// one, and on views whose messages need lengths of two and three bytes,
// negative numbers, empty hands and empty notices, the bytes are
// proto.Marshal's; a text that is not UTF-8 fails as protobuf fails.
func TestAppendPackedResponseIsProtobufs(t *testing.T) {
	full := filled[sdk.View]()
	full.Board, full.Legal = nil, nil
	long := strings.Repeat("７六歩", 50)
	huge := strings.Repeat("x", 20000)
	big := sdk.View{Ply: -7, Status: sdk.Over, Position: long,
		Hands:  [][]sdk.HandPiece{{}, {{Kind: "P", Count: -1}, {Kind: "", Count: 0}}, {}},
		ToMove: []sdk.Seat{-1, 0, 1 << 20}, Score: []int{-1 << 40, 3},
		LastMove: &sdk.LegalMove{Seat: -1, From: -1, To: -1, Text: huge},
		History:  []sdk.PlayedMove{{}, {Seat: 3, Move: "a", Text: long, Number: -5}},
		Result:   &sdk.Result{Winners: []sdk.Seat{}, Places: []int{0, -2}, Draw: true},
		Notices:  []string{"", "notice.check", ""},
		Details:  []sdk.KeyValue{{}, {Key: "k", Value: huge}}}
	board := []byte{3, 1, 2, 3}
	legalBig := bytes.Repeat([]byte{7}, 300)
	for i, c := range []struct {
		st           sdk.State
		v            sdk.View
		board, legal []byte
	}{
		{sdk.State("BNM\x01state"), full, board, []byte{0}},
		{nil, sdk.View{}, nil, nil},
		{sdk.State{}, sdk.View{History: []sdk.PlayedMove{}, Legal: []sdk.LegalMove{}}, []byte{0}, []byte{0}},
		{bytes.Repeat([]byte{1}, 200), big, board, legalBig},
	} {
		want, err := marshalPacked(c.st, &c.v, c.board, c.legal)
		if err != nil {
			t.Fatal(err)
		}
		prefix := []byte("frame")
		got, err := AppendPackedResponse(prefix, c.st, &c.v, c.board, c.legal)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !bytes.Equal(got[len(prefix):], want) || string(got[:len(prefix)]) != "frame" {
			t.Errorf("case %d:\n%x\nwant\n%x", i, got[len(prefix):], want)
		}
	}
	for i, v := range []sdk.View{
		{Position: "\xff"}, {Notices: []string{"\xc3"}}, {LastMove: &sdk.LegalMove{Alt: "\xe3\x81"}},
		{Hands: [][]sdk.HandPiece{{{Kind: "\x80"}}}}, {Details: []sdk.KeyValue{{Value: "\xed\xa0\x80"}}},
	} {
		_, want := marshalPacked(nil, &v, nil, nil)
		got, err := AppendPackedResponse([]byte("x"), nil, &v, nil, nil)
		if want == nil || err == nil || err.Error() != want.Error() || string(got) != "x" {
			t.Errorf("bad text %d: %q, %v; protobuf says %v", i, got, err, want)
		}
	}
	if _, err := AppendPackedResponse(nil, nil, &sdk.View{Board: make([]sdk.Cell, 1)}, nil, nil); err == nil {
		t.Error("a view with a board of its own: no error")
	}
}
