package rules

import (
	"strings"
)

// Move names for people: Japanese (▲７六歩, △同　歩, ▲２二角成, ▲５五角打,
// with 上/引/寄/右/左/直 when two like pieces could reach the cell) and
// western in Hodges' style (P-7f, Bx2b+, S-4c=, P*5e, G6i-5h).

// jpNames are the Japanese names of every kind, promoted ones included.
var jpNames = [15]string{"", "歩", "香", "桂", "銀", "角", "飛", "金", "玉", "と", "成香", "成桂", "成銀", "馬", "龍"}

var (
	jpFiles = [10]string{"", "１", "２", "３", "４", "５", "６", "７", "８", "９"}
	jpRanks = [10]string{"", "一", "二", "三", "四", "五", "六", "七", "八", "九"}
	marks   = [2]string{"▲", "△"}
)

// jpSquare prints a cell as "７六".
func jpSquare(sq int) string {
	return jpFiles[9-colOf[sq]] + jpRanks[rowOf[sq]+1]
}

// westernLetters are the Hodges letters of the base kinds.
var westernLetters = [9]string{"", "P", "L", "N", "S", "B", "R", "G", "K"}

func westernPiece(k int) string {
	if k > king {
		return "+" + westernLetters[k-promoted]
	}
	return westernLetters[k]
}

// namer names the moves of one position: it knows the legal moves (to tell
// like pieces apart) and the previous move's target (for 同).
type namer struct {
	p      *Position
	legal  []Move
	prevTo int // 0 when there is no previous move
	// shared marks the targets that board moves from more than one cell
	// reach, so that rivals scans the list only for those: a View names
	// every legal move, twice, and a scan per name made that quadratic.
	// from is the first origin seen per target (0, no board cell, when
	// none). Both are filled on first use.
	indexed bool
	shared  [mbSize]bool
	from    [mbSize]uint8
}

// index fills shared and from.
func (n *namer) index() {
	if n.indexed {
		return
	}
	n.indexed = true
	for _, x := range n.legal {
		if x.isDrop() {
			continue
		}
		to, from := x.to(), uint8(x.from())
		switch n.from[to] {
		case 0:
			n.from[to] = from
		case from:
		default:
			n.shared[to] = true
		}
	}
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
// m's target.
func (n *namer) rivals(m Move) []int {
	if m.isDrop() {
		return nil
	}
	if n.index(); !n.shared[m.to()] {
		return nil
	}
	pc := n.p.b[m.from()]
	var out []int
	for _, x := range n.legal {
		if x.isDrop() || x.to() != m.to() || x.from() == m.from() || n.p.b[x.from()] != pc {
			continue
		}
		if !containsInt(out, x.from()) {
			out = append(out, x.from())
		}
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
func (n *namer) Japanese(m Move) string {
	var sb strings.Builder
	to := m.to()
	if to == n.prevTo {
		sb.WriteString("同")
	} else {
		sb.WriteString(jpSquare(to))
	}
	var name string
	if m.isDrop() {
		name = jpNames[m.dropKind()]
	} else {
		name = jpNames[kindOf(n.p.b[m.from()])]
	}
	if to == n.prevTo && len([]rune(name)) == 1 {
		sb.WriteString("　")
	}
	sb.WriteString(name)
	if m.isDrop() {
		sb.WriteString("打")
		return sb.String()
	}
	sb.WriteString(n.relative(m))
	if m.promotes() {
		sb.WriteString("成")
	} else if n.promoChoice(m) {
		sb.WriteString("不成")
	}
	return sb.String()
}

// relative picks the 上/引/寄/右/左/直 that tells m's piece from its rivals,
// after the Japan Shogi Association's notation rules.
func (n *namer) relative(m Move) string {
	rivals := n.rivals(m)
	if len(rivals) == 0 {
		return ""
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
	vert := func(from int) string {
		switch d := fwd(from); {
		case d > 0:
			return "上"
		case d < 0:
			return "引"
		}
		return "寄"
	}
	v := vert(m.from())
	var same []int
	for _, r := range rivals {
		if vert(r) == v {
			same = append(same, r)
		}
	}
	if len(same) == 0 {
		return v
	}
	k := kindOf(n.p.b[m.from()])
	if k != horse && k != dragon && colOf[m.from()] == colOf[m.to()] && fwd(m.from()) > 0 {
		return "直"
	}
	side := func(set []int) string {
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
	if s := side(rivals); s != "" {
		return s
	}
	if s := side(same); s != "" {
		return s + v
	}
	return ""
}

// Western names m in Hodges' style: "P-7f", "Bx2b+", "S-4c=", "P*5e", with
// the origin cell when a like piece could also go there ("G6i-5h").
func (n *namer) Western(m Move) string {
	if m.isDrop() {
		return westernLetters[m.dropKind()] + "*" + usiSquare(m.to())
	}
	var sb strings.Builder
	sb.WriteString(westernPiece(kindOf(n.p.b[m.from()])))
	if len(n.rivals(m)) > 0 {
		sb.WriteString(usiSquare(m.from()))
	}
	if n.p.b[m.to()] != 0 {
		sb.WriteByte('x')
	} else {
		sb.WriteByte('-')
	}
	sb.WriteString(usiSquare(m.to()))
	if m.promotes() {
		sb.WriteByte('+')
	} else if n.promoChoice(m) {
		sb.WriteByte('=')
	}
	return sb.String()
}
