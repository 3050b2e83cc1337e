package rules

import (
	"strconv"
	"strings"

	"github.com/banmen/banmen/sdk"
)

// The one-line position text and the seat-prefixed move text, documented in
// docs/notation-yonin.md.

// seatLetters are the seats in the move text (upper case) and the position
// text (lower case); 'x' in the position text is nobody.
const (
	seatUpper = "SWNE"
	seatLower = "swnex"
	facings   = "^>v<"
)

// StartText is the position text of the standard start with default options.
const StartText = "2SnGnKnGnSn2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"

// pieceTotals is the whole piece set: no position may hold more of a kind.
var pieceTotals = [numKinds]int{0, 4, 4, 8, 8, 16}

// maxMoveNumber bounds the move number of a position text.
const maxMoveNumber = 1 << 20

func badPosition(format string, args ...any) error {
	return sdk.Errorf(sdk.CodeBadPosition, format, args...)
}

// ParsePosition reads a position text and validates it: one king per seat,
// flipped exactly for the mated seats, no more pieces than the set holds, no
// pawn on its last rank, a live seat to move (or "-" for an ended game).
func ParsePosition(text string) (Position, error) {
	var p Position
	fields := strings.Fields(text)
	if len(fields) != 6 {
		return p, badPosition("want 6 fields (board, turn, hands, mates, rules, move number), got %d", len(fields))
	}
	if err := p.parseBoard(fields[0]); err != nil {
		return p, err
	}
	switch t := fields[1]; {
	case t == "-":
		p.turn = -1
	case len(t) == 1 && strings.IndexByte(seatLower[:4], t[0]) >= 0:
		p.turn = int8(strings.IndexByte(seatLower, t[0]))
	default:
		return p, badPosition("bad seat to move %q", sdk.Clip(t))
	}
	if err := p.parseHands(fields[2]); err != nil {
		return p, err
	}
	if err := p.parseMates(fields[3]); err != nil {
		return p, err
	}
	r, err := parseRules(fields[4])
	if err != nil {
		return p, err
	}
	p.rules = r
	n, err := strconv.Atoi(fields[5])
	if err != nil || n < 1 || n > maxMoveNumber || fields[5] != strconv.Itoa(n) {
		return p, badPosition("bad move number %q", sdk.Clip(fields[5]))
	}
	p.ply = n - 1
	if err := p.validate(); err != nil {
		return p, err
	}
	p.findRooks()
	p.cacheChecks()
	return p, nil
}

func (p *Position) parseBoard(s string) error {
	rows := strings.Split(s, "/")
	if len(rows) != 9 {
		return badPosition("want 9 rows, got %d", len(rows))
	}
	for r, row := range rows {
		c := 0
		for i := 0; i < len(row); {
			ch := row[i]
			if ch >= '1' && ch <= '9' {
				c += int(ch - '0')
				i++
				if c > 9 {
					return badPosition("row %d is too long", r+1)
				}
				continue
			}
			if c >= 9 {
				return badPosition("row %d is too long", r+1)
			}
			pc, n, err := parsePiece(row[i:])
			if err != nil {
				return badPosition("row %d: %v", r+1, err.(*sdk.RuleError).Message)
			}
			p.board[r*9+c] = pc
			c++
			i += n
		}
		if c != 9 {
			return badPosition("row %d has %d squares", r+1, c)
		}
	}
	return nil
}

// parsePiece reads one piece token: [~][+]Kind owner [facing].
func parsePiece(s string) (piece, int, error) {
	i := 0
	flipped := i < len(s) && s[i] == '~'
	if flipped {
		i++
	}
	promoted := i < len(s) && s[i] == '+'
	if promoted {
		i++
	}
	if i+2 > len(s) {
		return 0, 0, badPosition("truncated piece %q", sdk.Clip(s))
	}
	kind := strings.IndexByte(string(kindLetters[1:]), s[i]) + 1
	if kind == 0 {
		return 0, 0, badPosition("bad piece letter %q", s[i])
	}
	owner := strings.IndexByte(seatLower, s[i+1])
	if owner < 0 {
		return 0, 0, badPosition("bad owner %q", s[i+1])
	}
	i += 2
	facing := owner
	if i < len(s) {
		if f := strings.IndexByte(facings, s[i]); f >= 0 {
			facing = f
			i++
		}
	}
	if owner == ownerless && facing == ownerless {
		return 0, 0, badPosition("an ownerless piece needs a facing")
	}
	switch {
	case promoted && !canPromote(kind):
		return 0, 0, badPosition("%c cannot be promoted", kindLetters[kind])
	case flipped && kind != kindKing:
		return 0, 0, badPosition("only a king lies flipped")
	case kind == kindKing && owner == ownerless:
		return 0, 0, badPosition("a king always has an owner")
	case kind == kindKing && facing != owner:
		return 0, 0, badPosition("a king faces its owner's way")
	}
	pc := makePiece(kind, owner, facing, promoted)
	if flipped {
		pc |= flippedBit
	}
	return pc, i, nil
}

func (p *Position) parseHands(s string) error {
	if s == "-" {
		return nil
	}
	for i := 0; i < len(s); {
		n := 0
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' && j-i < 2 {
			n = n*10 + int(s[j]-'0')
			j++
		}
		if j == i {
			n = 1
		} else if n < 2 || s[i] == '0' {
			return badPosition("bad hand count in %q", sdk.Clip(s))
		}
		if j+2 > len(s) {
			return badPosition("truncated hands %q", sdk.Clip(s))
		}
		kind := strings.IndexByte(string(kindLetters[:]), s[j])
		if kind <= kindKing {
			return badPosition("bad hand piece %q", s[j])
		}
		owner := strings.IndexByte(seatLower[:4], s[j+1])
		if owner < 0 {
			return badPosition("bad hand owner %q", s[j+1])
		}
		if p.hands[owner][kind] != 0 {
			return badPosition("hand piece %c%c listed twice", s[j], s[j+1])
		}
		p.hands[owner][kind] = uint8(n)
		i = j + 2
	}
	return nil
}

func (p *Position) parseMates(s string) error {
	if s == "-" {
		return nil
	}
	for _, m := range strings.Split(s, ",") {
		if len(m) != 2 {
			return badPosition("bad mate %q", sdk.Clip(m))
		}
		mated := strings.IndexByte(seatLower[:4], m[0])
		mater := strings.IndexByte(seatLower, m[1])
		if mated < 0 || mater < 0 || mated == mater {
			return badPosition("bad mate %q", sdk.Clip(m))
		}
		if mater == ownerless {
			mater = noCredit
		}
		if !p.live(mated) || int(p.nmates) >= len(p.mates) {
			return badPosition("seat %c is mated twice, or too many mates", m[0])
		}
		p.mates[p.nmates] = mateRecord{mated: int8(mated), mater: int8(mater)}
		p.nmates++
		p.elim |= 1 << mated
	}
	return nil
}

func parseRules(s string) (Rules, error) {
	var r Rules
	parts := strings.Split(s, ",")
	if len(parts) < 3 || len(parts) > 4 {
		return r, badPosition("bad rules %q", sdk.Clip(s))
	}
	switch parts[0] {
	case "singles":
	case "pairs":
		r.Pairs = true
	default:
		return r, badPosition("bad format %q", sdk.Clip(parts[0]))
	}
	switch parts[1] {
	case "two_mates":
	case "last_player":
		r.LastPlayer = true
	default:
		return r, badPosition("bad ending %q", sdk.Clip(parts[1]))
	}
	switch parts[2] {
	case "mater":
	case "ownerless":
		r.Ownerless = true
	default:
		return r, badPosition("bad mated pieces %q", sdk.Clip(parts[2]))
	}
	if len(parts) == 4 {
		v, ok := strings.CutPrefix(parts[3], "limit=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 1 || n > maxMoveLimit || v != strconv.Itoa(n) {
			return r, badPosition("bad move limit %q", sdk.Clip(parts[3]))
		}
		r.Limit = n
	}
	return r, nil
}

// validate checks what the grammar cannot: kings, piece totals, pawns with
// no move, and a turn consistent with the mates.
func (p *Position) validate() error {
	var kings [4]int
	var totals [numKinds]int
	for sq, pc := range p.board {
		if pc == 0 {
			continue
		}
		totals[pc.kind()]++
		o := pc.owner()
		if pc.kind() == kindKing {
			kings[o]++
			p.kings[o] = int8(sq)
			if pc.flipped() == p.live(o) {
				return badPosition("seat %c's king must lie flipped exactly when it is mated", seatUpper[o])
			}
			continue
		}
		if o < ownerless && !p.live(o) {
			return badPosition("mated seat %c owns a piece on the board", seatUpper[o])
		}
		if pc.kind() == kindPawn && !pc.promoted() && onLastRank(sq, pc.facing()) {
			return badPosition("an unpromoted pawn on its last rank at %s", squareText(sq))
		}
	}
	for s := range 4 {
		if kings[s] != 1 {
			return badPosition("seat %c has %d kings", seatUpper[s], kings[s])
		}
		for _, k := range handKinds {
			totals[k] += int(p.hands[s][k])
			if p.hands[s][k] != 0 && !p.live(s) {
				return badPosition("mated seat %c holds pieces", seatUpper[s])
			}
		}
	}
	for k := kindKing; k < numKinds; k++ {
		if totals[k] > pieceTotals[k] {
			return badPosition("%d pieces of kind %c, the set has %d", totals[k], kindLetters[k], pieceTotals[k])
		}
	}
	if p.turn >= 0 && !p.live(int(p.turn)) {
		return badPosition("the seat to move is mated")
	}
	if p.turn >= 0 && p.mateEnded() {
		return badPosition("the mates have already ended this game")
	}
	if p.rules.Pairs && p.nmates > 1 || !p.rules.Pairs && !p.rules.LastPlayer && p.nmates > 2 || p.liveCount() == 0 {
		return badPosition("more mates than the game allows")
	}
	return nil
}

// Text is the position text.
func (p *Position) Text() string {
	var buf [160]byte // the text is one allocation
	b := buf[:0]
	for r := range 9 {
		if r > 0 {
			b = append(b, '/')
		}
		empty := 0
		for c := range 9 {
			pc := p.board[r*9+c]
			if pc == 0 {
				empty++
				continue
			}
			if empty > 0 {
				b = append(b, byte('0'+empty))
				empty = 0
			}
			if pc.flipped() {
				b = append(b, '~')
			}
			if pc.promoted() {
				b = append(b, '+')
			}
			b = append(b, kindLetters[pc.kind()])
			b = append(b, seatLower[pc.owner()])
			if pc.facing() != pc.owner() {
				b = append(b, facings[pc.facing()])
			}
		}
		if empty > 0 {
			b = append(b, byte('0'+empty))
		}
	}
	b = append(b, ' ')
	if p.turn < 0 {
		b = append(b, '-')
	} else {
		b = append(b, seatLower[p.turn])
	}
	b = append(b, ' ')
	hands := 0
	for s := range 4 {
		for _, k := range handKinds {
			if n := p.hands[s][k]; n > 0 {
				if n > 1 {
					b = strconv.AppendInt(b, int64(n), 10)
				}
				b = append(b, kindLetters[k])
				b = append(b, seatLower[s])
				hands++
			}
		}
	}
	if hands == 0 {
		b = append(b, '-')
	}
	b = append(b, ' ')
	if p.nmates == 0 {
		b = append(b, '-')
	}
	for i, m := range p.mates[:p.nmates] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, seatLower[m.mated])
		if m.mater == noCredit {
			b = append(b, 'x')
		} else {
			b = append(b, seatLower[m.mater])
		}
	}
	b = append(b, ' ')
	b = p.rules.appendText(b)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(p.ply+1), 10)
	return string(b)
}

func (r Rules) text() string { return string(r.appendText(nil)) }

// appendText appends r.text() to b.
func (r Rules) appendText(b []byte) []byte {
	if r.Pairs {
		b = append(b, "pairs"...)
	} else {
		b = append(b, "singles"...)
	}
	if r.LastPlayer {
		b = append(b, ",last_player"...)
	} else {
		b = append(b, ",two_mates"...)
	}
	if r.Ownerless {
		b = append(b, ",ownerless"...)
	} else {
		b = append(b, ",mater"...)
	}
	if r.Limit > 0 {
		b = append(b, ",limit="...)
		b = strconv.AppendInt(b, int64(r.Limit), 10)
	}
	return b
}

// squareText is a square in USI style: file 9..1 from West's edge to East's,
// rank a..i from North's edge to South's.
func squareText(sq int) string {
	return string([]byte{byte('9' - sq%9), byte('a' + sq/9)})
}

func parseSquare(s string) (int, bool) {
	if len(s) != 2 || s[0] < '1' || s[0] > '9' || s[1] < 'a' || s[1] > 'i' {
		return 0, false
	}
	return int(s[1]-'a')*9 + int('9'-s[0]), true
}

// moveText is the seat-prefixed move text: "S:5g5f", "N:4c4d+", "W:R*5e".
func moveText(seat int, m move) string { return string(appendMoveText(nil, seat, m)) }

// appendMoveText appends moveText(seat, m) to b.
func appendMoveText(b []byte, seat int, m move) []byte {
	b = append(b, seatUpper[seat], ':')
	if m.isDrop() {
		b = append(b, kindLetters[m.dropKind()], '*')
	} else {
		b = appendSquare(b, m.from())
	}
	b = appendSquare(b, m.to())
	if m.promote() {
		b = append(b, '+')
	}
	return b
}

// appendSquare appends squareText(sq) to b.
func appendSquare(b []byte, sq int) []byte { return append(b, byte('9'-sq%9), byte('a'+sq/9)) }

// parseMove reads a move text. It checks the grammar only, not legality.
func parseMove(s string) (seat int, m move, err error) {
	bad := sdk.Errorf(sdk.CodeBadMove, "bad move text %q (want e.g. S:5g5f, N:4c4d+, W:R*5e)", sdk.Clip(s))
	if len(s) < 6 || s[1] != ':' {
		return 0, 0, bad
	}
	seat = strings.IndexByte(seatUpper, s[0])
	if seat < 0 {
		return 0, 0, bad
	}
	body := s[2:]
	if body[1] == '*' {
		kind := strings.IndexByte(string(kindLetters[:]), body[0])
		to, ok := parseSquare(body[2:])
		if kind <= kindKing || !ok {
			return 0, 0, bad
		}
		return seat, dropMove(kind, to), nil
	}
	promote := strings.HasSuffix(body, "+")
	body = strings.TrimSuffix(body, "+")
	if len(body) != 4 {
		return 0, 0, bad
	}
	from, ok1 := parseSquare(body[:2])
	to, ok2 := parseSquare(body[2:])
	if !ok1 || !ok2 || from == to {
		return 0, 0, bad
	}
	return seat, boardMove(from, to, promote), nil
}

// displayText is the short readable form: "S P5g-5f", "N S4cx5d+", "W R*5e";
// "=" marks a declined promotion.
func (p *Position) displayText(seat int, m move) string {
	return string(p.appendDisplayText(nil, seat, m))
}

// appendDisplayText appends displayText(seat, m) to b.
func (p *Position) appendDisplayText(b []byte, seat int, m move) []byte {
	b = append(b, seatUpper[seat], ' ')
	if m.isDrop() {
		b = append(b, kindLetters[m.dropKind()], '*')
		return appendSquare(b, m.to())
	}
	pc := p.board[m.from()]
	if pc.promoted() {
		b = append(b, '+')
	}
	b = append(b, kindLetters[pc.kind()])
	b = appendSquare(b, m.from())
	if p.board[m.to()] != 0 {
		b = append(b, 'x')
	} else {
		b = append(b, '-')
	}
	b = appendSquare(b, m.to())
	switch {
	case m.promote():
		b = append(b, '+')
	case !pc.promoted() && canPromote(pc.kind()) && (inZone(m.from(), pc.facing()) || inZone(m.to(), pc.facing())):
		b = append(b, '=')
	}
	return b
}
