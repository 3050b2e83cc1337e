package wire

import (
	"errors"
	"slices"
	"unicode/utf8"

	"github.com/banmen/banmen/sdk"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// AppendPackedResponse appends the protobuf bytes of the GameResponse of
// state st and view v whose board and legal moves are packed already
// (board, legal; v's own are empty), exactly as proto.Marshal writes
// &GameResponse{State: st, View: FromViewPackedBy(v, ...)}, without
// building the wire View, its messages and their sizes first: on a
// shogi Play that was a fifth of what serve spent after the rules.
// encode_test.go compares the two on every field.
func AppendPackedResponse(b []byte, st sdk.State, v *sdk.View, board, legal []byte) ([]byte, error) {
	if len(v.Board) > 0 || len(v.Legal) > 0 {
		return b, errors.New("wire: a packed view with a board or legal moves of its own")
	}
	start := len(b)
	e := encoder{b: b}
	e.bytes(1, st)
	at := e.begin(2)
	e.view(v, board, legal)
	e.end(at)
	if e.bad {
		// A text that is not UTF-8: the error is protobuf's own, as it was.
		w, err := FromViewPacked(v)
		if err == nil {
			w.PackedBoard, w.PackedLegal = board, legal
			_, err = proto.Marshal(&GameResponse{State: st, View: w})
		}
		if err == nil {
			err = errors.New("wire: a view text is not valid UTF-8")
		}
		return b[:start], err
	}
	return e.b, nil
}

// encoder writes protobuf fields as the generated code does (proto3: zero
// values left out, field-number order, packed repeated numbers). bad is
// set by a string that is not UTF-8, which protobuf refuses.
type encoder struct {
	b   []byte
	bad bool
}

func (e *encoder) tag(num protowire.Number, t protowire.Type) {
	e.b = protowire.AppendTag(e.b, num, t)
}

func (e *encoder) int(num protowire.Number, x int) {
	if v := int32(x); v != 0 {
		e.tag(num, protowire.VarintType)
		e.b = protowire.AppendVarint(e.b, uint64(int64(v)))
	}
}

func (e *encoder) bool(num protowire.Number, x bool) {
	if x {
		e.tag(num, protowire.VarintType)
		e.b = append(e.b, 1)
	}
}

func (e *encoder) bytes(num protowire.Number, s []byte) {
	if len(s) > 0 {
		e.tag(num, protowire.BytesType)
		e.b = protowire.AppendBytes(e.b, s)
	}
}

// str writes a string field; always writes it even when empty (a repeated
// string's element).
func (e *encoder) str(num protowire.Number, s string, always bool) {
	if len(s) == 0 && !always {
		return
	}
	if !utf8.ValidString(s) {
		e.bad = true
	}
	e.tag(num, protowire.BytesType)
	e.b = protowire.AppendString(e.b, s)
}

// ints writes a packed repeated int32 field.
func ints32[T ~int](e *encoder, num protowire.Number, s []T) {
	if len(s) == 0 {
		return
	}
	n := 0
	for _, x := range s {
		n += protowire.SizeVarint(uint64(int64(int32(x))))
	}
	e.tag(num, protowire.BytesType)
	e.b = protowire.AppendVarint(e.b, uint64(n))
	for _, x := range s {
		e.b = protowire.AppendVarint(e.b, uint64(int64(int32(x))))
	}
}

// begin starts an embedded message field with a one-byte length, which
// end corrects; it returns where the message's bytes start.
func (e *encoder) begin(num protowire.Number) int {
	e.tag(num, protowire.BytesType)
	e.b = append(e.b, 0)
	return len(e.b)
}

// end sets the length of the message begun at at, moving its bytes when
// the length takes more than one byte.
func (e *encoder) end(at int) {
	n := len(e.b) - at
	if n < 0x80 {
		e.b[at-1] = byte(n)
		return
	}
	k := protowire.SizeVarint(uint64(n))
	e.b = slices.Grow(e.b, k-1)[:len(e.b)+k-1]
	copy(e.b[at+k-1:], e.b[at:at+n])
	protowire.AppendVarint(e.b[:at-1], uint64(n))
}

func (e *encoder) legalMove(num protowire.Number, m *sdk.LegalMove) {
	at := e.begin(num)
	e.int(1, int(m.Seat))
	e.str(2, string(m.Kind), false)
	e.str(3, string(m.Move), false)
	e.str(4, m.Text, false)
	e.str(5, m.Alt, false)
	e.int(6, m.From)
	e.int(7, m.To)
	e.str(8, m.Drop, false)
	e.bool(9, m.Promote)
	e.str(10, m.Key, false)
	e.end(at)
}

// view writes the fields of fromView(v, packed) with the packed lists
// board and legal.
func (e *encoder) view(v *sdk.View, board, legal []byte) {
	e.int(1, v.Ply)
	e.str(2, string(v.Status), false)
	e.str(3, v.Position, false)
	for _, h := range v.Hands {
		at := e.begin(5)
		for i := range h {
			pat := e.begin(1)
			e.str(1, h[i].Kind, false)
			e.int(2, h[i].Count)
			e.end(pat)
		}
		e.end(at)
	}
	ints32(e, 6, v.ToMove)
	ints32(e, 7, v.InCheck)
	ints32(e, 8, v.Eliminated)
	ints32(e, 9, v.Score)
	if v.LastMove != nil {
		e.legalMove(10, v.LastMove)
	}
	for i := range v.History {
		p := &v.History[i]
		at := e.begin(11)
		e.int(1, int(p.Seat))
		e.str(2, string(p.Move), false)
		e.str(3, p.Text, false)
		e.str(4, p.Alt, false)
		e.int(400, p.Number)
		e.end(at)
	}
	if r := v.Result; r != nil {
		at := e.begin(13)
		ints32(e, 1, r.Winners)
		ints32(e, 2, r.Places)
		e.str(3, r.Reason, false)
		e.bool(4, r.Draw)
		e.end(at)
	}
	for _, n := range v.Notices {
		e.str(14, n, true)
	}
	for _, kv := range v.Details {
		at := e.begin(15)
		e.str(1, kv.Key, false)
		e.str(2, kv.Value, false)
		e.end(at)
	}
	e.bool(16, v.HideLegal)
	e.bytes(100, board)
	e.bytes(101, legal)
}
