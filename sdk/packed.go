package sdk

import (
	"encoding/binary"
	"fmt"
	"slices"
	"unicode/utf8"
)

// PackedViewer is the optional capability of writing a View's board and
// legal list straight into the packed form the host asks for on the wire
// (Packed), instead of View.Board and View.Legal: a shogi View's few
// hundred legal moves then cost no []LegalMove, none of its texts a string
// of its own, and no second pass that packs them. serve.Serve uses it when
// the host asks for packed views (it always does); every other caller uses
// Play and View.
//
// PlayPacked and ViewPacked answer exactly as Play and View do, except that
// the View's Board and Legal stay empty and their cells and moves go to p,
// in the same order: the bytes the host receives must be the same either
// way (sdktest.CheckPacked checks it). serve encodes the View at once and
// drops it, so it may share its slices and pointers (read only) with
// other calls and with a cached game.
type PackedViewer interface {
	PlayPacked(s State, seat Seat, m Move, p *Packed) (State, View, error)
	ViewPacked(s State, p *Packed) (View, error)
}

// Packed is a View's board and legal list in the wire's packed form
// (sdk/internal/wire/packed.go). Each list is begun with its count
// (BeginBoard, BeginLegal) and then given exactly that many elements; a
// list never begun is empty. Its zero value is ready to use. The elements'
// texts are copied, so they may live in a buffer the variant reuses.
type Packed struct {
	board, legal []byte
	// cells and moves are the elements still to come, of nCells and
	// nMoves; boardOn and legalOn tell which lists were begun.
	cells, moves     int
	nCells, nMoves   int
	boardOn, legalOn bool
	err              error
}

// BeginBoard begins the board of n cells; size is a guess of its bytes
// (0 for none), so that the list grows once.
func (p *Packed) BeginBoard(n, size int) {
	if p.boardOn {
		p.fail(fmt.Errorf("sdk: packed board begun twice"))
		return
	}
	p.boardOn, p.cells, p.nCells = true, n, n
	p.board = AppendPackedCount(room(p.board, size), n)
}

// BeginLegal begins the legal list of n moves; size is a guess of its
// bytes (0 for none), so that the list grows once.
func (p *Packed) BeginLegal(n, size int) {
	if p.legalOn {
		p.fail(fmt.Errorf("sdk: packed legal list begun twice"))
		return
	}
	p.legalOn, p.moves, p.nMoves = true, n, n
	p.legal = AppendPackedCount(room(p.legal, size), n)
}

// room returns b emptied, or a new slice when b cannot hold size bytes.
func room(b []byte, size int) []byte {
	size = max(size, binary.MaxVarintLen64)
	if cap(b) >= size {
		return b[:0]
	}
	return make([]byte, 0, size)
}

// Reset empties p for another View, keeping its buffers: the lists Lists
// returned before must not be used any more.
func (p *Packed) Reset() {
	*p = Packed{board: p.board[:0], legal: p.legal[:0]}
}

func (p *Packed) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

// AddCell adds the next cell of the board.
func (p *Packed) AddCell(c *Cell) {
	if p.cells <= 0 {
		p.fail(fmt.Errorf("sdk: more cells packed than the board was begun with (%d)", p.nCells))
		return
	}
	i := p.nCells - p.cells
	p.cells--
	var err error
	if p.board, err = AppendPackedCell(p.board, i, c); err != nil {
		p.fail(err)
	}
}

// PackedCell is a cell in its packed form (PackCell), for a variant that
// packs the same few cells again and again: it makes one per piece once,
// and AddPackedCell then copies its bytes.
type PackedCell struct{ b string }

// PackCell packs c, failing on a kind that is not valid UTF-8.
func PackCell(c Cell) (PackedCell, error) {
	b, err := AppendPackedCell(nil, 0, &c)
	return PackedCell{string(b)}, err
}

// AddPackedCell adds the next cell of the board, packed by PackCell.
func (p *Packed) AddPackedCell(c PackedCell) {
	if p.cells <= 0 || c.b == "" {
		if c.b == "" {
			p.fail(fmt.Errorf("sdk: a PackedCell not made by PackCell"))
		} else {
			p.fail(fmt.Errorf("sdk: more cells packed than the board was begun with (%d)", p.nCells))
		}
		return
	}
	p.cells--
	p.board = append(p.board, c.b...)
}

// AddLegal adds the next legal move.
func (p *Packed) AddLegal(m *LegalMove) {
	if p.moves <= 0 {
		p.fail(fmt.Errorf("sdk: more legal moves packed than the list was begun with (%d)", p.nMoves))
		return
	}
	i := p.nMoves - p.moves
	p.moves--
	var err error
	if p.legal, err = AppendPackedLegal(p.legal, i, m); err != nil {
		p.fail(err)
	}
}

// PackedLegal is a legal move in its packed form (PackLegal), for a
// variant that lists the same moves in many positions (shogi's drops): it
// packs each once, and AddPackedLegal then copies its bytes.
type PackedLegal struct{ b string }

// PackLegal packs m, failing on a text that is not valid UTF-8.
func PackLegal(m LegalMove) (PackedLegal, error) {
	b, err := AppendPackedLegal(nil, 0, &m)
	return PackedLegal{string(b)}, err
}

// AddPackedLegal adds the next legal move, packed by PackLegal.
func (p *Packed) AddPackedLegal(m PackedLegal) {
	if p.moves <= 0 || m.b == "" {
		if m.b == "" {
			p.fail(fmt.Errorf("sdk: a PackedLegal not made by PackLegal"))
		} else {
			p.fail(fmt.Errorf("sdk: more legal moves packed than the list was begun with (%d)", p.nMoves))
		}
		return
	}
	p.moves--
	p.legal = append(p.legal, m.b...)
}

// Lists returns the packed board and legal list (a list never begun is
// packed empty), or the first error: a text that is not UTF-8, or a list given more or
// fewer elements than it was begun with.
func (p *Packed) Lists() (board, legal []byte, err error) {
	switch {
	case p.err != nil:
		return nil, nil, p.err
	case p.cells != 0:
		return nil, nil, fmt.Errorf("sdk: %d of the board's %d cells not packed", p.cells, p.nCells)
	case p.moves != 0:
		return nil, nil, fmt.Errorf("sdk: %d of the %d legal moves not packed", p.moves, p.nMoves)
	}
	board, legal = p.board, p.legal
	if !p.boardOn {
		board = AppendPackedCount(nil, 0)
	}
	if !p.legalOn {
		legal = AppendPackedCount(nil, 0)
	}
	return board, legal, nil
}

// The packed form's elements, which sdk/internal/wire/packed.go describes
// and reads. They are here so that a variant (through Packed) and the
// wire's own packing write them with the same code.

// AppendPackedCount appends a list's element count.
func AppendPackedCount(b []byte, n int) []byte { return appendUvarint(b, uint64(n)) }

// AppendPackedCell appends cell i (for the error) of a packed board. It
// fails, leaving b as it was, on a kind that is not valid UTF-8.
func AppendPackedCell(b []byte, i int, c *Cell) ([]byte, error) {
	if highBits(c.Kind) >= utf8.RuneSelf && !validText(c.Kind) {
		return b, fmt.Errorf("wire: cell %d: kind is not valid UTF-8", i)
	}
	b = appendStr(b, c.Kind)
	b = appendInt(b, int(c.Owner))
	b = appendInt(b, c.Facing)
	return append(b, flag(c.Promoted, 0)|flag(c.Flipped, 1)), nil
}

// AppendPackedLegal appends legal move i (for the error) of a packed list.
// It fails, leaving b as it was, on a text that is not valid UTF-8.
func AppendPackedLegal(b []byte, i int, m *LegalMove) ([]byte, error) {
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
