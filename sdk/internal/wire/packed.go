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
	// checked: s passed CheckLegal, so its strings are not checked for
	// UTF-8 again (EachLegal).
	checked bool
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
	if !u.checked && !asciiText(s) && !utf8.ValidString(s) {
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

// CheckBoard checks a packed board as UnpackBoard reads it, without
// keeping a cell, and returns how many cells it holds. A cell as these
// games pack it (an ASCII kind shorter than 128 bytes, numbers in one byte
// each) is checked inline; any other through the general reader.
func CheckBoard(s string) (int, error) {
	u := &unpacker{s: s}
	n := u.count(4)
	var c sdk.Cell
	for range n {
		if u.err != nil {
			break
		}
		if e := shortCell(s, u.i); e > 0 && asciiText(s[u.i+1:e-3]) && s[e-1] < 4 {
			u.i = e
			continue
		}
		u.cell(&c)
	}
	if err := u.end(); err != nil {
		return 0, err
	}
	return n, nil
}

// shortCell is where the cell that begins at s[i] ends when its kind's
// length and its two numbers take one byte each, else 0. The flags' byte
// (the last) is not looked at.
func shortCell(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	k := s[i]
	e := i + 1 + int(k) + 3
	if k >= 0x80 || e > len(s) || s[e-3] >= 0x80 || s[e-2] >= 0x80 {
		return 0
	}
	return e
}

func (u *unpacker) cell(c *sdk.Cell) {
	c.Kind = u.str()
	c.Owner = sdk.Seat(u.int())
	c.Facing = u.int()
	f := u.flags(2)
	c.Promoted, c.Flipped = f&1 != 0, f&2 != 0
}

// EachCell calls f with each cell of s, a board CheckBoard accepted, and
// its index, until f returns false. c is the same Cell each time, its kind
// a slice of s.
func EachCell(s string, f func(at int, c *sdk.Cell) bool) {
	u := &unpacker{s: s, checked: true}
	n := u.count(4)
	var c sdk.Cell
	for i := 0; i < n && u.err == nil; i++ {
		u.cell(&c)
		if u.err != nil || !f(i, &c) {
			return
		}
	}
}

// BoardChanges calls f with each cell of next whose packed bytes differ
// from prev's, both boards CheckBoard accepted, and is false (calling f
// for none) when they do not hold as many cells. A cell that is equal but
// packed otherwise (a longer varint) counts as changed, which costs its
// receiver nothing. Only the changed cells are unpacked: comparing the
// bytes of two boards is what a room does on every move.
func BoardChanges(prev, next string, f func(at int, c *sdk.Cell)) bool {
	p, q := unpacker{s: prev, checked: true}, unpacker{s: next, checked: true}
	n := q.count(4)
	if p.count(4) != n || p.err != nil || q.err != nil {
		return false
	}
	// The cells before the first byte that differs are the same: only
	// prev's are walked there.
	same := commonPrefix(prev, next)
	a, at := p.i, 0
	for ; at < n; at++ {
		e := cellEnd(prev, a)
		if e < 0 {
			return false
		}
		if e > same {
			break
		}
		a = e
	}
	// next's cells begin where prev's do but for the count's length, the
	// same unless one was packed longer (then no cell was walked).
	b := q.i + a - p.i
	var c sdk.Cell
	for ; at < n; at++ {
		ea, eb := cellEnd(prev, a), cellEnd(next, b)
		if ea < 0 || eb < 0 {
			return false // not a checked board
		}
		if prev[a:ea] != next[b:eb] {
			q.i = b
			q.cell(&c)
			f(at, &c)
			if prev[ea:] == next[eb:] {
				return true // the cells after it are the same
			}
		}
		a, b = ea, eb
	}
	return true
}

// commonPrefix is how many bytes a and b begin with in common, found by
// halving (each step a comparison of many bytes at once).
func commonPrefix(a, b string) int {
	lo, hi := 0, min(len(a), len(b)) // a[:lo] == b[:lo]; a[:hi+1] != b[:hi+1] or past the end
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if a[lo:mid] == b[lo:mid] {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// cellEnd is where the packed cell that begins at s[i] ends, or -1 for a
// cell cut short. It reads only the lengths: the kind's, and the two
// numbers' and the flags' byte.
func cellEnd(s string, i int) int {
	if e := shortCell(s, i); e > 0 {
		return e
	}
	var n uint64
	for shift := uint(0); ; shift += 7 {
		if i >= len(s) || shift > 63 {
			return -1
		}
		c := s[i]
		i++
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
	}
	if n > uint64(len(s)-i) {
		return -1
	}
	i += int(n)
	for range 2 { // owner, facing
		for i < len(s) && s[i] >= 0x80 {
			i++
		}
		i++
	}
	if i >= len(s) { // the flags' byte
		return -1
	}
	return i + 1
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

// CheckLegal checks a packed legal list as UnpackLegal reads it, without
// keeping a move, and returns how many it holds.
func CheckLegal(s string) (int, error) {
	u := &unpacker{s: s}
	n := u.count(10)
	var m sdk.LegalMove
	for i := 0; i < n && u.err == nil; i++ {
		u.legal(&m)
	}
	if err := u.end(); err != nil {
		return 0, err
	}
	return n, nil
}

// EachLegal calls f with each move of s, a list CheckLegal accepted, until
// f returns false. m is the same LegalMove each time, its strings slices of
// s.
func EachLegal(s string, f func(m *sdk.LegalMove) bool) {
	u := &unpacker{s: s, checked: true}
	n := u.count(10)
	var m sdk.LegalMove
	for i := 0; i < n && u.err == nil; i++ {
		u.legal(&m)
		if u.err != nil || !f(&m) {
			return
		}
	}
}
