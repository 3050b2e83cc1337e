package wire

import (
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// DecodePlayRequest reads a PlayRequest into r (a new one) as
// proto.Unmarshal does: the plugin's side of every move, where protobuf's
// general decoder was a tenth of the shogi plugin's CPU. It reads the
// fields a host writes itself, and leaves anything else (an unknown
// field, a field of an unexpected wire type, a text that is not UTF-8,
// bytes cut short) to proto.Unmarshal, so the answer, an error included,
// is always protobuf's.
func DecodePlayRequest(b []byte, r *PlayRequest) error {
	if decodePlay(b, r) {
		return nil
	}
	proto.Reset(r)
	return proto.Unmarshal(b, r)
}

// decodePlay is DecodePlayRequest's own reading; false: leave it to
// protobuf.
func decodePlay(b []byte, r *PlayRequest) bool {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return false
		}
		b = b[n:]
		switch typ {
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return false
			}
			b = b[n:]
			switch num {
			case 1, 4:
				if !utf8.Valid(v) {
					return false
				}
				if num == 1 {
					r.Variant = string(v)
				} else {
					r.Move = string(v)
				}
			case 2:
				r.State = append([]byte(nil), v...)
			default:
				return false
			}
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return false
			}
			b = b[n:]
			switch num {
			case 3:
				r.Seat = int32(v)
			case 5:
				r.HistoryFrom = int32(v)
			case 100:
				r.Packed = v != 0
			default:
				return false
			}
		default:
			return false
		}
	}
	return true
}

// AppendEncoded appends r as proto.Marshal writes it: the fields in the
// order of their numbers, those at their zero value left out. Every move's
// request is written this way, without protobuf's reflection; a request
// this does not cover (unknown fields, a text that is not UTF-8) goes
// through protobuf, which also gives its error. It makes a PlayRequest a
// channel.Encoder.
func (r *PlayRequest) AppendEncoded(b []byte) ([]byte, error) {
	if len(r.unknownFields) > 0 || !utf8.ValidString(r.Variant) || !utf8.ValidString(r.Move) {
		return proto.MarshalOptions{}.MarshalAppend(b, r)
	}
	if r.Variant != "" {
		b = protowire.AppendString(protowire.AppendTag(b, 1, protowire.BytesType), r.Variant)
	}
	if len(r.State) > 0 {
		b = protowire.AppendBytes(protowire.AppendTag(b, 2, protowire.BytesType), r.State)
	}
	if r.Seat != 0 {
		b = protowire.AppendVarint(protowire.AppendTag(b, 3, protowire.VarintType), uint64(int64(r.Seat)))
	}
	if r.Move != "" {
		b = protowire.AppendString(protowire.AppendTag(b, 4, protowire.BytesType), r.Move)
	}
	if r.HistoryFrom != 0 {
		b = protowire.AppendVarint(protowire.AppendTag(b, 5, protowire.VarintType), uint64(int64(r.HistoryFrom)))
	}
	if r.Packed {
		b = protowire.AppendVarint(protowire.AppendTag(b, 100, protowire.VarintType), 1)
	}
	return b, nil
}
