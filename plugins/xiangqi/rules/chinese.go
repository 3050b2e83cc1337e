package rules

// Chinese move notation, as Chinese and Japanese players write it (Simplified
// characters): the piece, the file it stands on, the direction (进 forward,
// 退 backward, 平 along the rank) and the file it reaches or the ranks it
// moves, as in WXF. Red counts files in Chinese numerals from its right
// (炮二平五), Black in Arabic digits from its own right (马8进7). Two pieces of
// a kind on one file are 前 (the front one) and 后; three soldiers 前, 中, 后;
// four or five are numbered from the front (一兵 … 五兵); where two files hold
// several soldiers, the file replaces the piece name (前三进一).

// chinesePieces are the pieces' characters, indexed by Kind, per colour.
var chinesePieces = [2][8]string{
	Red:   {"", "帅", "仕", "相", "马", "车", "炮", "兵"},
	Black: {"", "将", "士", "象", "马", "车", "炮", "卒"},
}

var redNumerals = [...]string{"一", "二", "三", "四", "五", "六", "七", "八", "九"}

// chineseNumber writes the WXF digit d ('1'–'9') for side c.
func chineseNumber(c Color, d byte) string {
	if c == Red {
		return redNumerals[d-'1']
	}
	return digits[d-'0' : d-'0'+1]
}

const digits = "0123456789"

// Chinese returns the Chinese text of the legal move m in p.
func (p *Position) Chinese(m Move) string { return string(p.appendChinese(nil, m, p.wxf(m))) }

// appendChinese appends the Chinese text of m, whose WXF bytes are w, to b.
func (p *Position) appendChinese(b []byte, m Move, w [4]byte) []byte {
	from := m.From()
	pc := p.board[from]
	c, k := pc.Color(), pc.Kind()
	name := chinesePieces[c][k]
	switch {
	case k == Pawn:
		first, second := p.chinesePawn(from, name)
		b = append(append(b, first...), second...)
	case w[1] == '+':
		b = append(append(b, "前"...), name...)
	case w[1] == '-':
		b = append(append(b, "后"...), name...)
	default:
		b = append(append(b, name...), chineseNumber(c, w[1])...)
	}
	switch w[2] {
	case '+':
		b = append(b, "进"...)
	case '-':
		b = append(b, "退"...)
	default:
		b = append(b, "平"...)
	}
	return append(b, chineseNumber(c, w[3])...)
}

// chinesePawn names the soldier on from among its side's soldiers, in
// two parts (the name is first+second).
func (p *Position) chinesePawn(from Square, name string) (first, second string) {
	pc := p.board[from]
	c := pc.Color()
	var perFile [9]int
	for r := 0; r < 10; r++ {
		for f := 0; f < 9; f++ {
			if p.board[sq(f, r)] == pc {
				perFile[f]++
			}
		}
	}
	n := perFile[from.File()]
	file := chineseNumber(c, wxfFile(c, from.File()))
	if n == 1 {
		return name, file
	}
	tandemFiles := 0
	for _, k := range perFile {
		if k >= 2 {
			tandemFiles++
		}
	}
	i := 0 // the soldier's place on its file from the front, 0-based
	for r := 0; r < 10; r++ {
		if s := sq(from.File(), r); p.board[s] == pc && ahead(c, s, from) {
			i++
		}
	}
	var mark string
	switch {
	case n == 2:
		mark = [...]string{"前", "后"}[i]
	case n == 3:
		mark = [...]string{"前", "中", "后"}[i]
	default:
		mark = redNumerals[i]
	}
	if tandemFiles >= 2 {
		return mark, file
	}
	return mark, name
}
