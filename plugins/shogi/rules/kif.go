package rules

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/banmen/banmen/sdk"
)

// KIF is the Japanese game record of Kifu for Windows, here always UTF-8
// (announced by its first line). The start position is "手合割：平手" or a
// board diagram (BOD); moves are "７六歩(77)", "同　歩(33)", "２二角成(88)",
// "３三銀(44)", "５五角打"; the record ends with a special move (投了,
// 詰み, 千日手, 入玉勝ち, ...) and a "まで" summary line. A declined
// promotion is written without a mark, as KIF writers do; "３三銀不成(44)",
// which older Banmen records and KI2-minded writers have, still reads.
// 投了 is the side to move resigning: a resignation on the opponent's turn
// is written 反則勝ち (the side to move wins) with a comment saying so.
//
// A game a player left (sdk.Abandon, a claimed win) is written as lishogi
// writes a game whose player left: 切れ負け, the side to move losing by not
// playing on, with a comment saying who left (対局放棄). When the player who
// left was not the side to move, 切れ負け would name the wrong loser, so it
// is 反則勝ち, as for a resignation out of turn, and the comment tells the
// two apart on Import. Import reads 切れ負け (from any writer: Banmen has no
// clocks, so a game lost on time reads as the closest ending it records) as
// the side to move having left.

// kifMove writes m, played in p after a move to prevTo, in KIF.
func kifMove(p *Position, m Move, prevTo int) string {
	var sb strings.Builder
	var name string
	if m.isDrop() {
		name = jpNames[m.dropKind()]
	} else {
		name = jpNames[kindOf(p.b[m.from()])]
	}
	if m.to() == prevTo {
		sb.WriteString("同")
		if utf8.RuneCountInString(name) == 1 {
			sb.WriteString("　")
		}
	} else {
		sb.WriteString(jpSquare(m.to()))
	}
	sb.WriteString(name)
	if m.isDrop() {
		sb.WriteString("打")
		return sb.String()
	}
	// A declined promotion is written as a plain move: KIF has only 成 and
	// 打 there (不成 is KI2's, kept in the move list's names), and readers
	// such as tsshogi's give up on a record that has it.
	if m.promotes() {
		sb.WriteString("成")
	}
	fmt.Fprintf(&sb, "(%d%d)", 9-colOf[m.from()], rowOf[m.from()]+1)
	return sb.String()
}

// bodChars are the one-character names of every kind on a board diagram.
var bodChars = [15]string{"", "歩", "香", "桂", "銀", "角", "飛", "金", "玉", "と", "杏", "圭", "全", "馬", "龍"}

var kanjiNums = []string{"", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三", "十四", "十五", "十六", "十七", "十八"}

// isStandardStart tells whether p is the initial position at move 1.
func (p *Position) isStandardStart() bool {
	s, _ := ParseSFEN(StartSFEN)
	return p.sameAs(&s) && p.moveNum == 1
}

// writeBOD writes p as a KIF board diagram.
func writeBOD(sb *strings.Builder, p *Position) {
	hand := func(c int) string {
		var parts []string
		for _, k := range handOrder {
			if n := int(p.hand[c][k]); n > 0 {
				s := bodChars[k]
				if n > 1 {
					s += kanjiNums[n]
				}
				parts = append(parts, s)
			}
		}
		if len(parts) == 0 {
			return "なし"
		}
		return strings.Join(parts, "　") + "　"
	}
	sb.WriteString("後手の持駒：" + hand(gote) + "\n")
	sb.WriteString("  ９ ８ ７ ６ ５ ４ ３ ２ １\n")
	sb.WriteString("+---------------------------+\n")
	for r := 0; r < 9; r++ {
		sb.WriteString("|")
		for col := 0; col < 9; col++ {
			pc := p.b[mb(r, col)]
			switch {
			case pc == 0:
				sb.WriteString(" ・")
			case colorOf(pc) == gote:
				sb.WriteString("v" + bodChars[kindOf(pc)])
			default:
				sb.WriteString(" " + bodChars[kindOf(pc)])
			}
		}
		sb.WriteString("|" + jpRanks[r+1] + "\n")
	}
	sb.WriteString("+---------------------------+\n")
	sb.WriteString("先手の持駒：" + hand(sente) + "\n")
	if p.side == gote {
		sb.WriteString("後手番\n")
	}
	if p.moveNum > 1 {
		fmt.Fprintf(sb, "手数＝%d\n", p.moveNum-1)
	}
}

var seatNames = [2]string{"先手", "後手"}

// kifLeftComment follows the side's name in the comment line of a game that
// side left ("*後手が対局を放棄").
const kifLeftComment = "が対局を放棄"

// exportKIF writes the game as UTF-8 KIF.
func (g *game) exportKIF() string { return g.exportKIFWith(nil) }

// exportKIFWith writes the game as UTF-8 KIF with the comment lines
// comments gives for the position after each ply (nil: none), each under
// the move that led to it, the start position's above the first move.
func (g *game) exportKIFWith(comments func(ply int) []string) string {
	var sb strings.Builder
	comment := func(ply int) {
		if comments != nil {
			for _, c := range comments(ply) {
				sb.WriteString(c)
				sb.WriteByte('\n')
			}
		}
	}
	sb.WriteString("#KIF version=2.0 encoding=UTF-8\n")
	sb.WriteString("# ---- Banmen 棋譜ファイル ----\n")
	if g.start().isStandardStart() {
		sb.WriteString("手合割：平手\n")
	} else {
		writeBOD(&sb, g.start())
	}
	sb.WriteString("先手：\n後手：\n")
	sb.WriteString("手数----指手---------消費時間--\n")
	comment(0)
	num := g.start().moveNum
	for i, r := range g.records {
		switch {
		case r.m != 0:
			p, prevTo := g.before(i)
			fmt.Fprintf(&sb, "%4d %s   ( 0:00/00:00:00)\n", num, kifMove(p, r.m, prevTo))
		case g.hist[i].Move == DeclareMove:
			fmt.Fprintf(&sb, "%4d 入玉勝ち\n", num)
		case g.hist[i].Move == sdk.Abandon:
			if r.seat == g.pos.side {
				fmt.Fprintf(&sb, "%4d 切れ負け\n", num)
			} else {
				fmt.Fprintf(&sb, "%4d 反則勝ち\n", num)
			}
			fmt.Fprintf(&sb, "*%s%s\n", seatNames[r.seat], kifLeftComment)
		case r.seat == g.pos.side:
			fmt.Fprintf(&sb, "%4d 投了\n", num)
		default:
			// 投了 is the side to move resigning; on the opponent's turn
			// the side to move wins, which KIF says as 反則勝ち (the one
			// special move that lets the side to move win without a
			// move); the comment says what happened.
			fmt.Fprintf(&sb, "%4d 反則勝ち\n", num)
			fmt.Fprintf(&sb, "*%sが%sの手番で投了\n", seatNames[r.seat], seatNames[r.seat^1])
		}
		if r.m != 0 {
			comment(i + 1)
		}
		num++
	}
	res := g.result
	if res == nil {
		return sb.String()
	}
	moves := g.boardMoveCount()
	winner := ""
	if len(res.Winners) == 1 {
		winner = seatNames[res.Winners[0]]
	}
	switch res.Reason {
	case ReasonCheckmate:
		fmt.Fprintf(&sb, "%4d 詰み\n", num)
		fmt.Fprintf(&sb, "まで%d手で%sの勝ち\n", moves, winner)
	case ReasonRepetition:
		fmt.Fprintf(&sb, "%4d 千日手\n", num)
		fmt.Fprintf(&sb, "まで%d手で千日手\n", moves)
	case ReasonPerpetualCheck:
		// The special move speaks for the side to move: it loses when it
		// is the checker, else it wins by the other side's foul.
		if int(res.Winners[0]) == g.pos.side {
			fmt.Fprintf(&sb, "%4d 反則勝ち\n", num)
		} else {
			fmt.Fprintf(&sb, "%4d 反則負け\n", num)
		}
		fmt.Fprintf(&sb, "まで%d手で連続王手の千日手により%sの勝ち\n", moves, winner)
	case ReasonDeclaration:
		fmt.Fprintf(&sb, "まで%d手で%sの入玉勝ち\n", moves, winner)
	case sdk.ReasonAbandoned:
		fmt.Fprintf(&sb, "まで%d手で%sの対局放棄により%sの勝ち\n", moves, seatNames[res.Winners[0]^1], winner)
	default:
		fmt.Fprintf(&sb, "まで%d手で%sの勝ち\n", moves, winner)
	}
	return sb.String()
}

// kifPieceNames maps the names a KIF move may use to kinds.
var kifPieceNames = map[string]int{
	"歩": pawn, "香": lance, "桂": knight, "銀": silver, "金": gold, "角": bishop, "飛": rook, "玉": king, "王": king,
	"と": tokin, "成香": proLance, "杏": proLance, "成桂": proKnight, "圭": proKnight, "成銀": proSilver, "全": proSilver,
	"馬": horse, "龍": dragon, "竜": dragon,
}

// digitValue reads a full-width, ASCII or kanji digit 1..9.
func digitValue(r rune) int {
	switch {
	case r >= '１' && r <= '９':
		return int(r-'１') + 1
	case r >= '1' && r <= '9':
		return int(r - '0')
	}
	for i, k := range jpRanks[1:] {
		if string(r) == k {
			return i + 1
		}
	}
	return 0
}

// kifStop lists the special moves after which a record has no more moves.
var kifStop = map[string]bool{
	"中断": true, "詰み": true, "千日手": true, "持将棋": true, "反則勝ち": true, "反則負け": true,
	"切れ負け": true, "不詰": true, "不戦勝": true, "不戦敗": true,
}

// importKIF reads a KIF record (its main line; variations are skipped).
func importKIF(text string) (*game, error) {
	if !utf8.ValidString(text) {
		return nil, sdk.Errorf(sdk.CodeBadNotation, "KIF: the text is not UTF-8")
	}
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	var rows []string
	known := false // a line only KIF has was seen
	hands := [2]string{"", ""}
	side := sente
	moveNum := 1
	handicap := ""
	var g *game
	n := 0
	bad := func(format string, args ...any) error {
		return sdk.Errorf(sdk.CodeBadNotation, "KIF: "+format, args...)
	}
	lines := strings.Split(text, "\n")
	for li, line := range lines {
		line = strings.TrimRight(line, " \t")
		trimmed := strings.TrimLeft(line, " \t")
		switch {
		case trimmed == "", strings.HasPrefix(line, "#"), strings.HasPrefix(line, "*"), strings.HasPrefix(line, "&"),
			strings.HasPrefix(line, "まで"):
			continue
		case strings.HasPrefix(line, "手数----"), strings.HasPrefix(line, "+---"),
			strings.HasPrefix(trimmed, "９ ８") || strings.HasPrefix(trimmed, "９　８"):
			known = true
			continue
		case strings.HasPrefix(line, "変化："):
			return finishKIF(g, rows, hands, side, moveNum, handicap)
		}
		if g == nil {
			switch {
			case strings.HasPrefix(line, "|"):
				if len(rows) >= 9 {
					return nil, bad("the board has more than 9 ranks")
				}
				rows = append(rows, line)
				continue
			case line == "後手番" || line == "上手番":
				side = gote
				continue
			case line == "先手番" || line == "下手番":
				side = sente
				continue
			case strings.HasPrefix(line, "手数＝"):
				v, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "手数＝")))
				if err != nil || v < 0 || v >= MaxMoveNumber {
					return nil, bad("bad move count %q", sdk.Clip(line))
				}
				moveNum = v + 1
				continue
			}
			if key, val, ok := strings.Cut(line, "："); ok && !isMoveLine(trimmed) {
				switch key {
				case "手合割":
					known = true
					handicap = strings.TrimSpace(val)
				case "先手の持駒", "下手の持駒":
					hands[sente] = val
				case "後手の持駒", "上手の持駒":
					hands[gote] = val
				}
				continue
			}
		}
		if !isMoveLine(trimmed) {
			return nil, bad("cannot read %q", sdk.Clip(line))
		}
		if g == nil {
			var err error
			if g, err = kifStart(rows, hands, side, moveNum, handicap); err != nil {
				return nil, err
			}
		}
		if g.over() {
			break
		}
		_, rest, _ := strings.Cut(trimmed, " ")
		rest = strings.TrimLeft(rest, " \t")
		tok, _, _ := strings.Cut(rest, " ")
		tok, _, _ = strings.Cut(tok, "\t")
		n++
		switch {
		case tok == "投了":
			if err := g.play(g.pos.side, sdk.Resign); err != nil {
				return nil, notationError(n, err)
			}
			continue
		case tok == "入玉勝ち" || tok == "宣言勝ち":
			if err := g.play(g.pos.side, DeclareMove); err != nil {
				return nil, notationError(n, err)
			}
			continue
		case tok == "切れ負け":
			if err := g.play(g.pos.side, sdk.Abandon); err != nil {
				return nil, notationError(n, err)
			}
			return g, nil
		case tok == "反則勝ち" || tok == "反則負け":
			// Without a foul found on the board (a perpetual check ends
			// the game before this line), the losing side resigned, or
			// left when the comment under the line says so: exportKIF
			// writes 反則勝ち for both out of turn.
			loser := g.pos.side
			if tok == "反則勝ち" {
				loser ^= 1
			}
			end := sdk.Resign
			if li+1 < len(lines) && strings.TrimRight(lines[li+1], " \t") == "*"+seatNames[loser]+kifLeftComment {
				end = sdk.Abandon
			}
			if err := g.play(loser, end); err != nil {
				return nil, notationError(n, err)
			}
			return g, nil
		case kifStop[tok]:
			return g, nil
		}
		m, err := parseKIFMove(&g.pos, tok, g.prevTo())
		if err != nil {
			return nil, notationError(n, err)
		}
		if err := g.play(g.pos.side, sdk.Move(m.USI())); err != nil {
			return nil, notationError(n, err)
		}
	}
	if g == nil && !known && len(rows) == 0 {
		return nil, bad("no KIF header, board or moves")
	}
	return finishKIF(g, rows, hands, side, moveNum, handicap)
}

func finishKIF(g *game, rows []string, hands [2]string, side, moveNum int, handicap string) (*game, error) {
	if g != nil {
		return g, nil
	}
	return kifStart(rows, hands, side, moveNum, handicap)
}

// isMoveLine tells whether a trimmed line starts with a move number.
func isMoveLine(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i < len(s) && (s[i] == ' ' || s[i] == '\t')
}

// kifStart builds the start position from a board diagram, or the handicap
// line (only 平手, the even game, is shogi as Banmen plays it).
func kifStart(rows []string, hands [2]string, side, moveNum int, handicap string) (*game, error) {
	bad := func(format string, args ...any) error {
		return sdk.Errorf(sdk.CodeBadNotation, "KIF: "+format, args...)
	}
	if len(rows) == 0 {
		if handicap != "" && handicap != "平手" {
			return nil, sdk.Errorf(sdk.CodeUnsupported, "KIF: handicap %q is not played here", sdk.Clip(handicap))
		}
		p, _ := ParseSFEN(StartSFEN)
		p.moveNum = moveNum
		return newGame(p), nil
	}
	if len(rows) != 9 {
		return nil, bad("the board has %d ranks, not 9", len(rows))
	}
	var sb strings.Builder
	for r, row := range rows {
		if r > 0 {
			sb.WriteByte('/')
		}
		rs := []rune(strings.TrimPrefix(row, "|"))
		if len(rs) < 18 {
			return nil, bad("rank %d is too short", r+1)
		}
		for col := 0; col < 9; col++ {
			owner, ch := rs[2*col], string(rs[2*col+1])
			if ch == "・" {
				sb.WriteByte('1')
				continue
			}
			k := 0
			for i, b := range bodChars {
				if b == ch && i > 0 {
					k = i
				}
			}
			switch ch {
			case "王":
				k = king
			case "竜":
				k = dragon
			}
			if k == 0 || (owner != ' ' && owner != 'v' && owner != '^') {
				return nil, bad("rank %d has an unknown cell %q", r+1, string(rs[2*col:2*col+2]))
			}
			if k > king {
				sb.WriteByte('+')
			}
			letter := sfenLetters[k]
			if owner == 'v' {
				letter += 'a' - 'A'
			}
			sb.WriteByte(letter)
		}
	}
	sfen := compactSFENBoard(sb.String())
	sfen += []string{" b ", " w "}[side]
	h, err := kifHands(hands)
	if err != nil {
		return nil, err
	}
	sfen += h + " " + strconv.Itoa(moveNum)
	p, err := ParseSFEN(sfen)
	if err != nil {
		return nil, err
	}
	return newGame(p), nil
}

// compactSFENBoard merges runs of "1" into one digit.
func compactSFENBoard(s string) string {
	var sb strings.Builder
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '1' {
			run++
			continue
		}
		if run > 0 {
			sb.WriteByte(byte('0' + run))
			run = 0
		}
		sb.WriteByte(s[i])
	}
	if run > 0 {
		sb.WriteByte(byte('0' + run))
	}
	return sb.String()
}

// kifHands turns the two hand lines ("飛　角二　", "なし") into an SFEN hand.
func kifHands(hands [2]string) (string, error) {
	var sb strings.Builder
	for c := 0; c < 2; c++ {
		s := strings.TrimSpace(strings.ReplaceAll(hands[c], "　", " "))
		if s == "" || s == "なし" {
			continue
		}
		for _, item := range strings.Fields(s) {
			rs := []rune(item)
			k := 0
			for i, b := range bodChars[:gold+1] {
				if i > 0 && b == string(rs[0]) {
					k = i
				}
			}
			num := 1
			if len(rs) > 1 {
				num = 0
				for i, kn := range kanjiNums {
					if kn == string(rs[1:]) {
						num = i
					}
				}
			}
			if k == 0 || num == 0 {
				return "", sdk.Errorf(sdk.CodeBadNotation, "KIF: cannot read %q in hand", sdk.Clip(item))
			}
			if num > 1 {
				sb.WriteString(strconv.Itoa(num))
			}
			letter := sfenLetters[k]
			if c == gote {
				letter += 'a' - 'A'
			}
			sb.WriteByte(letter)
		}
	}
	if sb.Len() == 0 {
		return "-", nil
	}
	return sb.String(), nil
}

// parseKIFMove reads one KIF move ("７六歩(77)", "同　歩(33)", "５五角打")
// in position p.
func parseKIFMove(p *Position, tok string, prevTo int) (Move, error) {
	bad := func() (Move, error) { return 0, sdk.Errorf(sdk.CodeBadMove, "%q is not a KIF move", sdk.Clip(tok)) }
	rs := []rune(tok)
	i := 0
	var to int
	if len(rs) > 0 && rs[0] == '同' {
		if prevTo == 0 {
			return bad()
		}
		to = prevTo
		i = 1
		for i < len(rs) && rs[i] == '　' {
			i++
		}
	} else {
		if len(rs) < 2 {
			return bad()
		}
		f, r := digitValue(rs[0]), digitValue(rs[1])
		if f == 0 || r == 0 {
			return bad()
		}
		to = mb(r-1, 9-f)
		i = 2
	}
	k := 0
	if i+2 <= len(rs) {
		k = kifPieceNames[string(rs[i:i+2])]
		if k != 0 && k > king {
			i += 2
		} else {
			k = 0
		}
	}
	if k == 0 && i < len(rs) {
		k = kifPieceNames[string(rs[i])]
		i++
	}
	if k == 0 {
		return bad()
	}
	for i < len(rs) && strings.ContainsRune("右左直上引寄行入", rs[i]) {
		i++
	}
	rest := string(rs[i:])
	promote, drop, from := false, false, 0
	switch {
	case strings.HasPrefix(rest, "不成"):
		rest = rest[len("不成"):]
	case strings.HasPrefix(rest, "成"):
		promote = true
		rest = rest[len("成"):]
	case strings.HasPrefix(rest, "打"):
		drop = true
		rest = rest[len("打"):]
	}
	if rest != "" {
		if len(rest) != 4 || rest[0] != '(' || rest[3] != ')' || rest[1] < '1' || rest[1] > '9' || rest[2] < '1' || rest[2] > '9' {
			return bad()
		}
		from = mb(int(rest[2]-'1'), int('9'-rest[1]))
	}
	if drop {
		if from != 0 || k > gold {
			return bad()
		}
		return dropMove(k, to), nil
	}
	if from != 0 {
		if kindOf(p.b[from]) != k || p.b[from]&colorMask != colorFlag[p.side] {
			return 0, sdk.Errorf(sdk.CodeIllegalMove, "%q: no such piece on the source cell", sdk.Clip(tok))
		}
		return boardMove(from, to, promote), nil
	}
	// No source cell: the move must be the only one of that piece there.
	var found Move
	for _, m := range p.legalMoves(nil) {
		if m.to() != to || m.promotes() != promote {
			continue
		}
		if m.isDrop() && m.dropKind() != k || !m.isDrop() && kindOf(p.b[m.from()]) != k {
			continue
		}
		if found != 0 && !found.isDrop() && !m.isDrop() {
			return 0, sdk.Errorf(sdk.CodeBadMove, "%q is ambiguous without its source cell", sdk.Clip(tok))
		}
		if found == 0 || found.isDrop() {
			found = m
		}
	}
	if found == 0 {
		return 0, sdk.Errorf(sdk.CodeIllegalMove, "%q is not legal here", sdk.Clip(tok))
	}
	return found, nil
}
