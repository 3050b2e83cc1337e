package rules

import (
	"fmt"
	"strings"

	"github.com/banmen/banmen/sdk"
)

// CSA is the Computer Shogi Association's record format, version 2.2: "PI"
// or P1..P9 and P+/P- lines for the position, "+" or "-" for the side to
// move, moves as "+7776FU" (the piece after the move, so a promotion shows
// as its promoted name, "+8822UM"), drops from "00", and special moves
// (%TORYO, %KACHI, %TSUMI, %SENNICHITE, %TIME_UP, %+ILLEGAL_ACTION, ...).
// %TORYO is the side to move resigning; a resignation on the opponent's
// turn is written as the resigner's %±ILLEGAL_ACTION, which names the loser.
//
// A game a player left (sdk.Abandon, a claimed win) is written as lishogi
// writes a game whose player left: %TIME_UP, the side to move losing by not
// playing on, after a comment saying who left. When the player who left was
// not the side to move, %TIME_UP would name the wrong loser, so it is that
// player's %±ILLEGAL_ACTION, as for a resignation out of turn, and the
// comment tells the two apart on Import. Import reads %TIME_UP (from any
// writer: Banmen has no clocks, so a game lost on time reads as the closest
// ending it records) as the side to move having left.

// csaNames are the CSA names of every kind.
var csaNames = [15]string{"", "FU", "KY", "KE", "GI", "KA", "HI", "KI", "OU", "TO", "NY", "NK", "NG", "UM", "RY"}

var csaSigns = [2]string{"+", "-"}

// csaLeftComment follows the side's name in the comment line of a game that
// side left ("'Gote left the game").
const csaLeftComment = " left the game"

func csaKind(s string) int {
	for k, n := range csaNames {
		if k > 0 && n == s {
			return k
		}
	}
	return 0
}

// csaMove writes m, played in p, in CSA.
func csaMove(p *Position, m Move) string {
	to := fmt.Sprintf("%d%d", 9-colOf[m.to()], rowOf[m.to()]+1)
	if m.isDrop() {
		return csaSigns[p.side] + "00" + to + csaNames[m.dropKind()]
	}
	k := kindOf(p.b[m.from()])
	if m.promotes() {
		k += promoted
	}
	return fmt.Sprintf("%s%d%d%s%s", csaSigns[p.side], 9-colOf[m.from()], rowOf[m.from()]+1, to, csaNames[k])
}

// exportCSA writes the game as CSA V2.2.
func (g *game) exportCSA() string {
	var sb strings.Builder
	sb.WriteString("V2.2\nN+\nN-\n")
	p := g.start()
	if p.isStandardStart() {
		sb.WriteString("PI\n")
	} else {
		for r := 0; r < 9; r++ {
			fmt.Fprintf(&sb, "P%d", r+1)
			for col := 0; col < 9; col++ {
				pc := p.b[mb(r, col)]
				if pc == 0 {
					sb.WriteString(" * ")
				} else {
					sb.WriteString(csaSigns[colorOf(pc)] + csaNames[kindOf(pc)])
				}
			}
			sb.WriteByte('\n')
		}
		for c := 0; c < 2; c++ {
			line := "P" + csaSigns[c]
			for _, k := range handOrder {
				for i := 0; i < int(p.hand[c][k]); i++ {
					line += "00" + csaNames[k]
				}
			}
			if len(line) > 2 {
				sb.WriteString(line + "\n")
			}
		}
	}
	sb.WriteString(csaSigns[p.side] + "\n")
	for i, r := range g.records {
		switch {
		case r.m != 0:
			p, _ := g.before(i)
			sb.WriteString(csaMove(p, r.m) + "\n")
		case g.hist[i].Move == DeclareMove:
			sb.WriteString("%KACHI\n")
		case g.hist[i].Move == sdk.Abandon:
			fmt.Fprintf(&sb, "'%s%s\n", colorName[r.seat], csaLeftComment)
			if r.seat == g.pos.side {
				sb.WriteString("%TIME_UP\n")
			} else {
				fmt.Fprintf(&sb, "%%%sILLEGAL_ACTION\n", csaSigns[r.seat])
			}
		case r.seat == g.pos.side:
			sb.WriteString("%TORYO\n")
		default:
			// %TORYO is the side to move resigning, and CSA has no pass
			// to give the resigner the turn: the one special move that
			// names the side that loses is %+ILLEGAL_ACTION or
			// %-ILLEGAL_ACTION, so readers name the right winner; the
			// comment says what happened.
			fmt.Fprintf(&sb, "'%s resigned on %s's turn\n", colorName[r.seat], colorName[r.seat^1])
			fmt.Fprintf(&sb, "%%%sILLEGAL_ACTION\n", csaSigns[r.seat])
		}
	}
	if res := g.result; res != nil {
		switch res.Reason {
		case ReasonCheckmate:
			sb.WriteString("%TSUMI\n")
		case ReasonRepetition:
			sb.WriteString("%SENNICHITE\n")
		case ReasonPerpetualCheck:
			fmt.Fprintf(&sb, "%%%sILLEGAL_ACTION\n", csaSigns[res.Winners[0]^1])
		case ReasonStalemate:
			sb.WriteString("'stalemate: the side to move has no legal move and loses\n")
		}
	}
	return sb.String()
}

// importCSA reads a CSA record (versions 2 to 3 read alike for a game).
func importCSA(text string) (*game, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	bad := func(format string, args ...any) error {
		return sdk.Errorf(sdk.CodeBadNotation, "CSA: "+format, args...)
	}
	p := newEmptyPosition()
	var placed [15]int // pieces placed so far by base kind, for "AL"
	haveBoard := false
	var g *game
	n := 0
	place := func(c int, sq int, k int) error {
		if sq == 0 {
			if k < pawn || k > gold {
				return bad("%s cannot be in hand", csaNames[k])
			}
			if int(p.hand[c][k]) >= maxCount[k] {
				return bad("too many %s", csaNames[k])
			}
			p.hand[c][k]++
		} else {
			if p.b[sq] != 0 {
				return bad("two pieces on one cell")
			}
			if k == king && p.kingSq[c] != 0 {
				return bad("two kings")
			}
			p.put(sq, makePiece(c, k))
		}
		placed[baseKind[k]]++
		return nil
	}
	var lines []string
	left := -1 // the side the comment of an abandoned game names
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "'") {
			for c, name := range colorName {
				if strings.TrimRight(l, " \t") == "'"+name+csaLeftComment {
					left = c
				}
			}
			continue
		}
		lines = append(lines, strings.Split(l, ",")...)
	}
	for _, line := range lines {
		line = strings.TrimRight(line, " \t")
		switch {
		case line == "", strings.HasPrefix(line, "'"), strings.HasPrefix(line, "V"), strings.HasPrefix(line, "N"),
			strings.HasPrefix(line, "$"), strings.HasPrefix(line, "T"):
			continue
		case line == "PI" || strings.HasPrefix(line, "PI") && len(line) > 2:
			s, _ := ParseSFEN(StartSFEN)
			p.b, p.kingSq = s.b, s.kingSq
			// Handicap removals: "PI82HI22KA".
			for r := line[2:]; len(r) > 0; r = r[min(4, len(r)):] {
				if len(r) < 4 {
					return nil, bad("bad PI line %q", sdk.Clip(line))
				}
				sq, ok := csaSquare(r[:2])
				k := csaKind(r[2:4])
				if !ok || sq == 0 || p.b[sq] == 0 || kindOf(p.b[sq]) != k {
					return nil, bad("bad PI line %q", sdk.Clip(line))
				}
				p.put(sq, 0)
			}
			haveBoard = true
			for _, sq := range squares {
				if pc := p.b[sq]; pc != 0 {
					placed[baseKind[kindOf(pc)]]++
				}
			}
		case len(line) >= 2 && line[0] == 'P' && line[1] >= '1' && line[1] <= '9':
			r := int(line[1] - '1')
			cells := line[2:]
			for len(cells) < 27 {
				cells += " "
			}
			if len(cells) != 27 {
				return nil, bad("bad board line %q", sdk.Clip(line))
			}
			for col := 0; col < 9; col++ {
				cell := cells[3*col : 3*col+3]
				if strings.TrimSpace(cell) == "*" || strings.TrimSpace(cell) == "" {
					continue
				}
				c := strings.IndexByte("+-", cell[0])
				k := csaKind(cell[1:])
				if c < 0 || k == 0 {
					return nil, bad("bad cell %q on line %q", cell, sdk.Clip(line))
				}
				if err := place(c, mb(r, col), k); err != nil {
					return nil, err
				}
			}
			haveBoard = true
		case strings.HasPrefix(line, "P+") || strings.HasPrefix(line, "P-"):
			c := strings.IndexByte("+-", line[1])
			for r := line[2:]; len(r) > 0; r = r[min(4, len(r)):] {
				if len(r) < 4 {
					return nil, bad("bad line %q", sdk.Clip(line))
				}
				if r[:4] == "00AL" {
					for k := pawn; k <= gold; k++ {
						for placed[k] < maxCount[k] {
							if err := place(c, 0, k); err != nil {
								return nil, err
							}
						}
					}
					continue
				}
				sq, ok := csaSquare(r[:2])
				k := csaKind(r[2:4])
				if !ok || k == 0 {
					return nil, bad("bad line %q", sdk.Clip(line))
				}
				if err := place(c, sq, k); err != nil {
					return nil, err
				}
			}
			haveBoard = true
		case (line == "+" || line == "-") && g == nil:
			if !haveBoard {
				return nil, bad("the side to move comes before the position")
			}
			p.side = strings.IndexByte("+-", line[0])
			if err := p.validate(); err != nil {
				return nil, err
			}
			g = newGame(p)
		case line[0] == '+' || line[0] == '-' || line[0] == '%':
			if g == nil {
				return nil, bad("a move before the position and the side to move")
			}
			n++
			switch line {
			case "%TORYO":
				if err := g.play(g.pos.side, sdk.Resign); err != nil {
					return nil, notationError(n, err)
				}
				continue
			case "%KACHI":
				if err := g.play(g.pos.side, DeclareMove); err != nil {
					return nil, notationError(n, err)
				}
				continue
			case "%TIME_UP":
				if err := g.play(g.pos.side, sdk.Abandon); err != nil {
					return nil, notationError(n, err)
				}
				return g, nil
			case "%+ILLEGAL_ACTION", "%-ILLEGAL_ACTION":
				// The named side loses; a game the record has not
				// ended yet (a perpetual check has) ends as that
				// side's resignation, what exportCSA writes this for,
				// or as its leaving when the comment says it left.
				if !g.over() {
					loser := strings.IndexByte("+-", line[1])
					end := sdk.Resign
					if loser == left {
						end = sdk.Abandon
					}
					if err := g.play(loser, end); err != nil {
						return nil, notationError(n, err)
					}
				}
				return g, nil
			}
			if line[0] == '%' {
				return g, nil
			}
			m, err := parseCSAMove(&g.pos, line)
			if err != nil {
				return nil, notationError(n, err)
			}
			if err := g.play(g.pos.side, sdk.Move(m.USI())); err != nil {
				return nil, notationError(n, err)
			}
		default:
			return nil, bad("cannot read %q", sdk.Clip(line))
		}
	}
	if g == nil {
		return nil, bad("no side to move")
	}
	return g, nil
}

// csaSquare reads "77" (or "00" for the hand, returned as 0).
func csaSquare(s string) (int, bool) {
	if s == "00" {
		return 0, true
	}
	if len(s) != 2 || s[0] < '1' || s[0] > '9' || s[1] < '1' || s[1] > '9' {
		return 0, false
	}
	return mb(int(s[1]-'1'), int('9'-s[0])), true
}

// parseCSAMove reads "+7776FU" (or "-0055KA") in position p.
func parseCSAMove(p *Position, s string) (Move, error) {
	bad := func() (Move, error) { return 0, sdk.Errorf(sdk.CodeBadMove, "%q is not a CSA move", sdk.Clip(s)) }
	if len(s) != 7 {
		return bad()
	}
	if s[0] != csaSigns[p.side][0] {
		return 0, sdk.Errorf(sdk.CodeNotYourTurn, "%q is not the side to move's move", sdk.Clip(s))
	}
	from, ok1 := csaSquare(s[1:3])
	to, ok2 := csaSquare(s[3:5])
	k := csaKind(s[5:7])
	if !ok1 || !ok2 || to == 0 || k == 0 {
		return bad()
	}
	if from == 0 {
		if k > gold {
			return bad()
		}
		return dropMove(k, to), nil
	}
	have := kindOf(p.b[from])
	if p.b[from]&colorMask != colorFlag[p.side] {
		return 0, sdk.Errorf(sdk.CodeIllegalMove, "%q: no piece of the side to move there", sdk.Clip(s))
	}
	switch {
	case have == k:
		return boardMove(from, to, false), nil
	case canPromote(have) && have+promoted == k:
		return boardMove(from, to, true), nil
	}
	return 0, sdk.Errorf(sdk.CodeIllegalMove, "%q: the piece there is %s", sdk.Clip(s), csaNames[have])
}
