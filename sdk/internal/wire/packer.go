package wire

import (
	"encoding/binary"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/banmen/banmen/sdk"
)

// The packed form's elements (packed.go describes the format), written by
// PackBoard, PackLegal, AppendBoard and AppendLegal.

// appendPackedCount appends a list's element count.
func appendPackedCount(b []byte, n int) []byte { return appendUvarint(b, uint64(n)) }

// appendPackedCell appends cell i (for the error) of a packed board. It
// fails, leaving b as it was, on a kind that is not valid UTF-8.
func appendPackedCell(b []byte, i int, c *sdk.Cell) ([]byte, error) {
	if highBits(c.Kind) >= utf8.RuneSelf && !validText(c.Kind) {
		return b, fmt.Errorf("wire: cell %d: kind is not valid UTF-8", i)
	}
	b = appendStr(b, c.Kind)
	b = appendInt(b, int(c.Owner))
	b = appendInt(b, c.Facing)
	return append(b, flag(c.Promoted, 0)|flag(c.Flipped, 1)), nil
}

// appendPackedLegal appends legal move i (for the error) of a packed list.
// It fails, leaving b as it was, on a text that is not valid UTF-8.
func appendPackedLegal(b []byte, i int, m *sdk.LegalMove) ([]byte, error) {
	// Every text but Text is nearly always ASCII: one test for them all.
	if highBits(string(m.Kind))|highBits(string(m.Move))|highBits(m.Alt)|highBits(m.Drop)|highBits(m.Key) >= utf8.RuneSelf &&
		(!validText(string(m.Kind)) || !validText(string(m.Move)) || !validText(m.Alt) || !validText(m.Drop) || !validText(m.Key)) ||
		!validText(m.Text) {
		return b, fmt.Errorf("wire: legal move %d: a text is not valid UTF-8", i)
	}
	// Room for it all, so that no append below grows b (one-byte lengths,
	// up to five-byte numbers).
	b = slices.Grow(b, 6+3*5+1+len(m.Kind)+len(m.Move)+len(m.Text)+len(m.Alt)+len(m.Drop)+len(m.Key))
	b = appendInt(b, int(m.Seat))
	b = appendStr(b, string(m.Kind))
	b = appendStr(b, string(m.Move))
	b = appendStr(b, m.Text)
	b = appendStr(b, m.Alt)
	b = appendInt(b, m.From)
	b = appendInt(b, m.To)
	b = appendStr(b, m.Drop)
	b = append(b, flag(m.Promote, 0))
	return appendStr(b, m.Key), nil
}

func appendStr(b []byte, s string) []byte {
	b = appendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendUvarint is binary.AppendUvarint with the one-byte case (nearly
// every length and number of a view) first.
func appendUvarint(b []byte, x uint64) []byte {
	if x < 0x80 {
		return append(b, byte(x))
	}
	return binary.AppendUvarint(b, x)
}

// appendInt appends an int as protobuf's int32 fields and zig-zag varints
// carry it.
func appendInt(b []byte, x int) []byte {
	v := int64(int32(x))
	return appendUvarint(b, uint64(v<<1)^uint64(v>>63))
}

// validText tells whether s is valid UTF-8. It passes ASCII and the
// three-byte sequences of the CJK texts (and the shogi marks) a view is
// full of itself, and leaves the rest of s to utf8.ValidString at the
// first other byte.
func validText(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		// E1-EC and EE-EF lead a valid sequence with any two
		// continuation bytes (E0 and ED restrict the second).
		if c >= 0xe1 && c != 0xed && c <= 0xef && i+2 < len(s) && s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 {
			i += 3
			continue
		}
		return utf8.ValidString(s[i:])
	}
	return true
}

// highBits ORs the bytes of s: below utf8.RuneSelf means ASCII, so valid.
func highBits(s string) byte {
	var acc byte
	for i := 0; i < len(s); i++ {
		acc |= s[i]
	}
	return acc
}

func flag(v bool, bit uint) byte {
	if v {
		return 1 << bit
	}
	return 0
}
