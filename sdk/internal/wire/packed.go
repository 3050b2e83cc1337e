package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"unicode/utf8"

	"github.com/banmen/banmen/sdk"
)

// The packed view. A shogi View holds 81 cells and up to a few hundred
// legal moves; as protobuf each is a message of its own (a length, tags, and
// on the host one allocation per message and per string), and encoding and
// decoding them was the largest part of a Play call's cost on both sides.
// When a request sets packed, the plugin sends the board and the legal moves
// as two byte strings instead (View.packed_board, View.packed_legal) and
// leaves View.board and View.legal empty. A plugin that does not know the
// flag (built before it, or in another language) sends them plain, and the
// host reads either.
//
// Both strings are a uvarint count and then the elements, each field in
// order, with
//
//	int:    zig-zag varint (binary.AppendVarint) of an int32, as protobuf's
//	        int32 fields carry it
//	string: uvarint byte length, then the bytes (valid UTF-8, as protobuf
//	        requires of its strings)
//	flags:  one byte of booleans, bit 0 first
//
// a cell being kind string, owner int, facing int, flags (promoted, flipped),
// and a legal move seat int, kind string, move string, text string, alt
// string, from int, to int, drop string, flags (promote), key string. Nothing
// may follow the last element; a truncated or overlong string is refused.

// ErrPacked wraps every reason a packed string is refused.
var ErrPacked = errors.New("wire: bad packed view")

// strSize is the bytes a packed string of s takes.
func strSize(s string) int { return uvarintSize(uint64(len(s))) + len(s) }

func uvarintSize(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// PackBoard packs cells into a string of its own (one allocation).
func PackBoard(cells []sdk.Cell) ([]byte, error) { return AppendBoard(nil, cells) }

// AppendBoard appends the packed board of cells to b, sized first so that
// b grows at most once. On an error (a kind that is not UTF-8) b is as it
// was.
func AppendBoard(b []byte, cells []sdk.Cell) ([]byte, error) {
	size := binary.MaxVarintLen64
	for i := range cells {
		size += strSize(cells[i].Kind) + 2*5 + 1
	}
	start := len(b)
	b = appendPackedCount(slices.Grow(b, size), len(cells))
	for i := range cells {
		var err error
		if b, err = appendPackedCell(b, i, &cells[i]); err != nil {
			return b[:start], err
		}
	}
	return b, nil
}

// PackLegal packs legal moves into a string of its own (one allocation).
func PackLegal(moves []sdk.LegalMove) ([]byte, error) { return AppendLegal(nil, moves) }

// AppendLegal appends the packed legal list of moves to b, sized first so
// that b grows at most once. On an error (a text that is not UTF-8) b is
// as it was.
func AppendLegal(b []byte, moves []sdk.LegalMove) ([]byte, error) {
	size := binary.MaxVarintLen64
	for i := range moves {
		m := &moves[i]
		size += strSize(string(m.Kind)) + strSize(string(m.Move)) + strSize(m.Text) + strSize(m.Alt) +
			strSize(m.Drop) + strSize(m.Key) + 3*5 + 1
	}
	start := len(b)
	b = appendPackedCount(slices.Grow(b, size), len(moves))
	for i := range moves {
		var err error
		if b, err = appendPackedLegal(b, i, &moves[i]); err != nil {
			return b[:start], err
		}
	}
	return b, nil
}

// unpacker reads a packed string. Every string it returns is a slice of
// one copy of the whole input, so unpacking allocates that copy and the
// element slice, not one string per field.
type unpacker struct {
	s   string
	i   int
	err error
}

func (u *unpacker) fail(what string) {
	if u.err == nil {
		u.err = fmt.Errorf("%w: %s at byte %d", ErrPacked, what, u.i)
	}
}

// short reads a uvarint of one byte, as most are, without uvarint's
// call: false if the next is longer (or missing, or an error came first).
func (u *unpacker) short() (uint64, bool) {
	if i := u.i; i < len(u.s) && u.err == nil {
		if c := u.s[i]; c < 0x80 {
			u.i = i + 1
			return uint64(c), true
		}
	}
	return 0, false
}

func (u *unpacker) uvarint() uint64 {
	if u.err != nil {
		return 0
	}
	var x uint64
	var shift uint
	for n := 0; ; n++ {
		if u.i >= len(u.s) {
			u.fail("truncated number")
			return 0
		}
		c := u.s[u.i]
		u.i++
		if n == binary.MaxVarintLen64-1 && c > 1 || n >= binary.MaxVarintLen64 {
			u.fail("number overflows 64 bits")
			return 0
		}
		if c < 0x80 {
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
}

// int reads a zig-zag varint that must fit an int32 (as protobuf's fields).
func (u *unpacker) int() int {
	ux, ok := u.short()
	if !ok {
		ux = u.uvarint()
	}
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	if x < -1<<31 || x > 1<<31-1 {
		u.fail("number out of range")
		return 0
	}
	return int(x)
}

func (u *unpacker) str() string {
	n, ok := u.short()
	if !ok {
		n = u.uvarint()
	}
	if u.err != nil {
		return ""
	}
	if n > uint64(len(u.s)-u.i) {
		u.fail("truncated string")
		return ""
	}
	s := u.s[u.i : u.i+int(n)]
	if !asciiText(s) && !utf8.ValidString(s) {
		u.fail("string is not valid UTF-8")
		return ""
	}
	u.i += int(n)
	return s
}

// asciiText is whether s is ASCII, read inline: the strings of a packed
// view are short, and most are, which spares utf8.ValidString's call.
func asciiText(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (u *unpacker) flags(n int) byte {
	if u.err != nil {
		return 0
	}
	if u.i >= len(u.s) {
		u.fail("truncated flags")
		return 0
	}
	f := u.s[u.i]
	u.i++
	if f>>n != 0 {
		u.fail("unknown flags")
	}
	return f
}

// count reads an element count, each element taking at least min bytes.
func (u *unpacker) count(min int) int {
	n := u.uvarint()
	if u.err == nil && n > uint64((len(u.s)-u.i)/min) {
		u.fail("count larger than the data")
		return 0
	}
	return int(n)
}

func (u *unpacker) end() error {
	if u.err == nil && u.i != len(u.s) {
		u.fail("data after the last element")
	}
	return u.err
}

// UnpackBoard reads what PackBoard wrote.
func UnpackBoard(b []byte) ([]sdk.Cell, error) { return unpackBoard(nil, string(b)) }

// unpackBoard unpacks s into dst's array if it fits; the cells' kinds are
// slices of s.
func unpackBoard(dst []sdk.Cell, s string) ([]sdk.Cell, error) {
	u := &unpacker{s: s}
	n := u.count(4)
	cells := dst[:0]
	if cells == nil || cap(cells) < n {
		cells = make([]sdk.Cell, n)
	}
	cells = cells[:n]
	for i := 0; i < n && u.err == nil; i++ {
		u.cell(&cells[i])
	}
	if err := u.end(); err != nil {
		return nil, err
	}
	return cells, nil
}

func (u *unpacker) cell(c *sdk.Cell) {
	c.Kind = u.str()
	c.Owner = sdk.Seat(u.int())
	c.Facing = u.int()
	f := u.flags(2)
	c.Promoted, c.Flipped = f&1 != 0, f&2 != 0
}

// UnpackLegal reads what PackLegal wrote.
func UnpackLegal(b []byte) ([]sdk.LegalMove, error) { return unpackLegal(nil, string(b)) }

// unpackLegal unpacks s into dst's array if it fits; the moves' strings are
// slices of s.
func unpackLegal(dst []sdk.LegalMove, s string) ([]sdk.LegalMove, error) {
	u := &unpacker{s: s}
	n := u.count(10)
	moves := dst[:0]
	if moves == nil || cap(moves) < n {
		moves = make([]sdk.LegalMove, n)
	}
	moves = moves[:n]
	for i := 0; i < n && u.err == nil; i++ {
		u.legal(&moves[i])
	}
	if err := u.end(); err != nil {
		return nil, err
	}
	return moves, nil
}

func (u *unpacker) legal(m *sdk.LegalMove) {
	m.Seat = sdk.Seat(u.int())
	m.Kind = sdk.MoveKind(u.str())
	m.Move = sdk.Move(u.str())
	m.Text = u.str()
	m.Alt = u.str()
	m.From = u.int()
	m.To = u.int()
	m.Drop = u.str()
	m.Promote = u.flags(1)&1 != 0
	m.Key = u.str()
}
