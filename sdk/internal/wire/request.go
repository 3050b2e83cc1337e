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
