package wire

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// checkPlayRequest fails unless DecodePlayRequest answers b as
// proto.Unmarshal does.
func checkPlayRequest(t *testing.T, b []byte) {
	t.Helper()
	var got, want PlayRequest
	errGot, errWant := DecodePlayRequest(b, &got), proto.Unmarshal(b, &want)
	if (errGot == nil) != (errWant == nil) || errGot == nil && !proto.Equal(&got, &want) {
		t.Fatalf("%x: decoded %v (%v), protobuf %v (%v)", b, &got, errGot, &want, errWant)
	}
	if errGot == nil && (got.State == nil) != (want.State == nil) {
		t.Fatalf("%x: state %v, protobuf %v", b, got.State, want.State)
	}
	if errWant == nil {
		checkPlayEncoded(t, &want)
	}
}

// checkPlayEncoded fails unless AppendEncoded writes r as proto.Marshal
// does, after what the buffer held.
func checkPlayEncoded(t *testing.T, r *PlayRequest) {
	t.Helper()
	want, errWant := proto.Marshal(r)
	got, errGot := r.AppendEncoded([]byte("head"))
	if (errGot == nil) != (errWant == nil) || errGot == nil && string(got) != "head"+string(want) {
		t.Fatalf("%v: encoded %x (%v), protobuf %x (%v)", r, got, errGot, want, errWant)
	}
}

// TestPlayEncodedIsProtobufs: every field alone and together, negative
// numbers, an empty state, unknown fields and a bad text are written as
// proto.Marshal writes them.
func TestPlayEncodedIsProtobufs(t *testing.T) {
	withUnknown := &PlayRequest{Move: "7g7f"}
	withUnknown.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 9, protowire.VarintType), 3))
	for _, r := range []*PlayRequest{
		{},
		{Variant: "shogi", State: []byte("BNM\x01state"), Seat: 1, Move: "7g7f", HistoryFrom: 160, Packed: true},
		{Seat: -1, HistoryFrom: -5},
		{State: []byte{}},
		{Move: "\xff"},
		{Variant: "\xffshogi"},
		withUnknown,
	} {
		checkPlayEncoded(t, r)
	}
}

func playRequestSeeds() [][]byte {
	full, _ := proto.Marshal(&PlayRequest{Variant: "shogi", State: []byte("BNM\x01state"), Seat: -1, Move: "7g7f", HistoryFrom: 160, Packed: true})
	empty, _ := proto.Marshal(&PlayRequest{})
	unknown := protowire.AppendVarint(protowire.AppendTag(append([]byte(nil), full...), 9, protowire.VarintType), 3)
	wrongType := protowire.AppendFixed32(protowire.AppendTag(nil, 3, protowire.Fixed32Type), 1)
	again := append(append([]byte(nil), full...), full[:len(full)-3]...)
	badText := protowire.AppendString(protowire.AppendTag(nil, 4, protowire.BytesType), "\xff")
	emptyState := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), nil)
	return [][]byte{full, empty, unknown, wrongType, again, badText, emptyState, full[:len(full)-1], {0}, {0x80}}
}

// TestDecodePlayRequestIsProtobufs: on what a host sends, fields repeated,
// unknown fields, wrong wire types, bad texts, an empty state and cut
// bytes, the decoder answers as proto.Unmarshal.
func TestDecodePlayRequestIsProtobufs(t *testing.T) {
	for _, b := range playRequestSeeds() {
		checkPlayRequest(t, b)
	}
}

func FuzzDecodePlayRequest(f *testing.F) {
	for _, b := range playRequestSeeds() {
		f.Add(b)
	}
	f.Fuzz(checkPlayRequest)
}

func BenchmarkPlayRequestEncode(b *testing.B) {
	r := &PlayRequest{Variant: "shogi", State: make([]byte, 120), Seat: 1, Move: "7g7f", HistoryFrom: 60, Packed: true}
	buf := make([]byte, 0, 512)
	b.Run("protobuf", func(b *testing.B) {
		for b.Loop() {
			buf, _ = proto.MarshalOptions{}.MarshalAppend(buf[:0], r)
		}
	})
	b.Run("AppendEncoded", func(b *testing.B) {
		for b.Loop() {
			buf, _ = r.AppendEncoded(buf[:0])
		}
	})
}
