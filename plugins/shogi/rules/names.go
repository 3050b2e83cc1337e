package rules

import (
	"unicode/utf8"
)

// Move names for people: Japanese (▲７六歩, △同　歩, ▲２二角成, ▲５五角打,
// with 上/引/寄/右/左/直 when two like pieces could reach the cell) and
// western in Hodges' style (P-7f, Bx2b+, S-4c=, P*5e, G6i-5h).

// jpNames are the Japanese names of every kind, promoted ones included.
var jpNames = [15]string{"", "歩", "香", "桂", "銀", "角", "飛", "金", "玉", "と", "成香", "成桂", "成銀", "馬", "龍"}

var (
	jpFiles = [10]string{"", "１", "２", "３", "４", "５", "６", "７", "８", "９"}
	jpRanks = [10]string{"", "一", "二", "三", "四", "五", "六", "七", "八", "九"}
	// marks are the side marks by colour, and noMark's "" after them.
	marks = [3]string{"▲", "△", ""}
)

// noMark is the index of marks' empty mark.
const noMark = 2

// jpSquare prints a cell as "７六".
func jpSquare(sq int) string { return jpSquares[sq] }

// westernLetters are the Hodges letters of the base kinds.
var westernLetters = [9]string{"", "P", "L", "N", "S", "B", "R", "G", "K"}

func westernPiece(k int) string { return westernPieces[k] }

// The names of cells and pieces, made once: a View names every legal move,
// and building each name from its parts was most of its allocations.
var (
	jpSquares     [mbSize]string // "７六", "" on walls
	usiSquares    [mbSize]string // "7f", "" on walls
	usiFile       [mbSize]byte   // '7'
	usiRank       [mbSize]byte   // 'f'
	westernPieces [15]string     // "P", "+P"
	// jpShort tells the kinds named with one character, which 同 pads
	// with a full-width space ("同　歩", but "同成銀").
	jpShort [15]bool
	// jpHeads[mark][cell][k] is a Japanese name's cell and piece after a
	// side mark (marks[mark]): "▲７六歩", "７六歩" for noMark, by view
	// cell (cellOf). Naming every legal move of a View appends one text
	// instead of three; the texts are in the table itself, not strings,
	// so that reading one touches one cache line.
	jpHeads [len(marks)][81][15]jpHead
)

// jpHead is one of jpHeads: the first n bytes of b.
type jpHead struct {
	n uint8
	b [15]byte // a mark, a cell and a piece of two characters: 3+6+6
}

// (By row and column: position.go's init, which fills rowOf and colOf,
// runs after this one.)
func init() {
	for r := 0; r < 9; r++ {
		for c := 0; c < 9; c++ {
			jpSquares[mb(r, c)] = jpFiles[9-c] + jpRanks[r+1]
			usiFile[mb(r, c)], usiRank[mb(r, c)] = byte('9'-c), byte('a'+r)
			usiSquares[mb(r, c)] = string([]byte{usiFile[mb(r, c)], usiRank[mb(r, c)]})
		}
	}
	for k := range westernPieces {
		if k > king {
			westernPieces[k] = "+" + westernLetters[k-promoted]
		} else {
			westernPieces[k] = westernLetters[k]
		}
		jpShort[k] = utf8.RuneCountInString(jpNames[k]) == 1
	}
	for mark := range jpHeads {
		for r := 0; r < 9; r++ {
			for c := 0; c < 9; c++ {
				for k := pawn; k < len(jpNames); k++ {
					h := &jpHeads[mark][r*9+c][k] // cellOf is not made yet
					h.n = uint8(copy(h.b[:], marks[mark]+jpSquares[mb(r, c)]+jpNames[k]))
				}
			}
		}
	}
}

// namer names the moves of one position: it knows the legal moves (to tell
// like pieces apart) and the previous move's target (for 同).
type namer struct {
	p      *Position
	legal  []Move
	prevTo int // 0 when there is no previous move
	// one tells a namer of one move (the move played): rivals scans the
	// legal list once instead of indexing it for many names.
	one bool
	// ix indexes the legal moves for rivals, filled on first use; nil
	// until then (index allocates it) unless the caller lends one
	// (scratch), so that a namer of one move clears no big arrays.
	indexed bool
	ix      *nameIndex
	byToBig []Move // ix.byTo when it is too small (never, but a list is a list)
	// rivalBuf and sameBuf back rivals' and relative's lists, so that
	// naming allocates nothing; rivalsOf is the move rivalBuf holds the
	// rivals of (0 for none), since both names of a move ask.
	rivalBuf [16]int
	sameBuf  [16]int
	rivalsOf Move
	rivalN   int
}

// nameIndex is what rivals reads. shared marks the targets that like
// pieces on more than one cell may reach (and a few more: it may err only
// that way), so that rivals looks further only for those; kinds and from
// find them, the kinds seen per target and the first origin. byTo is the
// board moves grouped by target, those to sq being byTo[at[sq]:at[sq+1]],
// so that rivals reads only the few moves to its target: a View names
// every legal move, twice, and a scan of the whole list per name made that
// quadratic. Nearly half the positions have no shared target, and then
// byTo is not made (grouped is false).
type nameIndex struct {
	shared  [mbSize]bool
	kinds   [mbSize]uint16 // bit k: a piece of kind k reaches the target
	from    [mbSize]uint8  // valid where kinds is not 0
	count   [mbSize]uint16 // the board moves to each target
	grouped bool
	at      [mbSize + 1]uint16
	byTo    [640]Move // more than the most legal moves a position has (593)
}

// index fills n.ix but byTo (group makes it).
func (n *namer) index() {
	if n.indexed {
		return
	}
	n.indexed = true
	if n.ix == nil {
		n.ix = new(nameIndex)
	} else {
		clear(n.ix.shared[:])
		clear(n.ix.kinds[:])
		clear(n.ix.count[:])
	}
	ix := n.ix
	ix.grouped = false
	for _, x := range n.legal {
		if x.isDrop() {
			continue
		}
		to, from := x.to(), uint8(x.from())
		ix.count[to]++
		bit := uint16(1) << kindOf(n.p.b[from])
		switch {
		case ix.kinds[to] == 0:
			ix.from[to] = from
		case ix.kinds[to]&bit != 0 && ix.from[to] != from:
			// The same kind from another cell, or (an error on the safe
			// side) a second move of a cell that came after the first.
			ix.shared[to] = true
		}
		ix.kinds[to] |= bit
	}
}

// group fills n.ix.byTo (index must have run).
func (n *namer) group() {
	ix := n.ix
	if ix.grouped {
		return
	}
	ix.grouped = true
	sum := uint16(0)
	for sq := range mbSize {
		ix.at[sq] = sum
		sum += ix.count[sq]
	}
	ix.at[mbSize] = sum
	byTo := ix.byTo[:]
	if int(sum) > len(ix.byTo) {
		n.byToBig = make([]Move, sum)
		byTo = n.byToBig
	}
	next := ix.at
	for _, x := range n.legal {
		if !x.isDrop() {
			byTo[next[x.to()]] = x
			next[x.to()]++
		}
	}
}

// movesTo returns the board moves to sq (index must have run).
func (n *namer) movesTo(sq int) []Move {
	n.group()
	if n.byToBig != nil {
		return n.byToBig[n.ix.at[sq]:n.ix.at[sq+1]]
	}
	return n.ix.byTo[n.ix.at[sq]:n.ix.at[sq+1]]
}

// promoChoice tells whether m's piece could have promoted on m (so that a
// non-promotion is written 不成 and "=").
func (n *namer) promoChoice(m Move) bool {
	if m.isDrop() {
		return false
	}
	k := kindOf(n.p.b[m.from()])
	return canPromote(k) && (zone[n.p.side][m.from()] || zone[n.p.side][m.to()])
}

// rivals returns the other cells from which a like piece may legally move to
// m's target. The slice is n's own, good until the next call.
func (n *namer) rivals(m Move) []int {
	if m.isDrop() {
		return nil
	}
	if m == n.rivalsOf {
		return n.rivalBuf[:n.rivalN]
	}
	var moves []Move
	if n.one {
		moves = n.legal // the moves to other targets are skipped below
	} else {
		if n.index(); !n.ix.shared[m.to()] {
			return nil
		}
		moves = n.movesTo(m.to())
	}
	pc := n.p.b[m.from()]
	out := n.rivalBuf[:0]
	for _, x := range moves {
		if x.isDrop() || x.to() != m.to() {
			continue
		}
		if x.from() == m.from() || n.p.b[x.from()] != pc {
			continue
		}
		if !containsInt(out, x.from()) {
			out = append(out, x.from())
		}
	}
	if len(out) <= len(n.rivalBuf) {
		n.rivalsOf, n.rivalN = m, len(out)
	}
	return out
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Japanese names m without the side mark, as in a move list: "７六歩",
// "同　歩", "２二角成", "３三銀不成", "５五角打", "５八金右".
func (n *namer) Japanese(m Move) string { return string(n.appendJapanese(nil, m)) }

// appendJapanese appends Japanese(m) to b.
func (n *namer) appendJapanese(b []byte, m Move) []byte { return n.appendJP(b, m, noMark) }

// appendText appends the text of m a View lists and records: the mover's
// mark and Japanese(m), "▲７六歩".
func (n *namer) appendText(b []byte, m Move) []byte { return n.appendJP(b, m, n.p.side) }

// appendJP appends Japanese(m) after the mark marks[mark] (none for
// noMark).
func (n *namer) appendJP(b []byte, m Move, mark int) []byte {
	to := m.to()
	k := m.dropKind()
	if !m.isDrop() {
		k = kindOf(n.p.b[m.from()])
	}
	if to == n.prevTo {
		b = append(b, marks[mark]...)
		b = append(b, "同"...)
		if jpShort[k] {
			b = append(b, "　"...)
		}
		b = append(b, jpNames[k]...)
	} else {
		h := &jpHeads[mark][cellOf[to]][k]
		b = append(b, h.b[:h.n]...)
	}
	if m.isDrop() {
		return append(b, "打"...)
	}
	rel, vert := n.relative(m)
	b = append(b, rel...)
	b = append(b, vert...)
	if m.promotes() {
		b = append(b, "成"...)
	} else if n.promoChoice(m) {
		b = append(b, "不成"...)
	}
	return b
}

// relative picks the 上/引/寄/右/左/直 that tells m's piece from its rivals,
// after the Japan Shogi Association's notation rules: a side (右/左/直)
// and a vertical (上/引/寄) word, either or both "" (the text is side+vert).
func (n *namer) relative(m Move) (side, vert string) {
	rivals := n.rivals(m)
	if len(rivals) == 0 {
		return "", ""
	}
	c := n.p.side
	// Forward and rightward as the mover sees the board.
	fwd := func(from int) int {
		d := rowOf[from] - rowOf[m.to()]
		if c == gote {
			d = -d
		}
		return d
	}
	right := func(sq int) int {
		if c == gote {
			return -colOf[sq]
		}
		return colOf[sq]
	}
	vertOf := func(from int) string {
		switch d := fwd(from); {
		case d > 0:
			return "上"
		case d < 0:
			return "引"
		}
		return "寄"
	}
	v := vertOf(m.from())
	same := n.sameBuf[:0]
	for _, r := range rivals {
		if vertOf(r) == v {
			same = append(same, r)
		}
	}
	if len(same) == 0 {
		return "", v
	}
	k := kindOf(n.p.b[m.from()])
	if k != horse && k != dragon && colOf[m.from()] == colOf[m.to()] && fwd(m.from()) > 0 {
		return "直", ""
	}
	sideOf := func(set []int) string {
		me := right(m.from())
		allLeft, allRight := true, true
		for _, r := range set {
			if right(r) >= me {
				allLeft = false
			}
			if right(r) <= me {
				allRight = false
			}
		}
		switch {
		case allLeft:
			return "右"
		case allRight:
			return "左"
		}
		return ""
	}
	if s := sideOf(rivals); s != "" {
		return s, ""
	}
	if s := sideOf(same); s != "" {
		return s, v
	}
	return "", ""
}

// Western names m in Hodges' style: "P-7f", "Bx2b+", "S-4c=", "P*5e", with
// the origin cell when a like piece could also go there ("G6i-5h").
func (n *namer) Western(m Move) string { return string(n.appendWestern(nil, m)) }

// appendWestern appends Western(m) to b.
func (n *namer) appendWestern(b []byte, m Move) []byte {
	if m.isDrop() {
		b = append(b, westernLetters[m.dropKind()]...)
		return append(b, '*', usiFile[m.to()], usiRank[m.to()])
	}
	b = append(b, westernPieces[kindOf(n.p.b[m.from()])]...)
	if len(n.rivals(m)) > 0 {
		b = append(b, usiFile[m.from()], usiRank[m.from()])
	}
	sep := byte('-')
	if n.p.b[m.to()] != 0 {
		sep = 'x'
	}
	b = append(b, sep, usiFile[m.to()], usiRank[m.to()])
	if m.promotes() {
		b = append(b, '+')
	} else if n.promoChoice(m) {
		b = append(b, '=')
	}
	return b
}
