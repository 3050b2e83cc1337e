package rules

// move packs a move: from (bits 0–6: a square, or dropBase+kind for a drop),
// to (bits 7–13) and promote (bit 14). The seat is the position's turn.
type move uint16

const dropBase = 81

func boardMove(from, to int, promote bool) move {
	m := move(from) | move(to)<<7
	if promote {
		m |= 1 << 14
	}
	return m
}

func dropMove(kind, to int) move { return move(dropBase+kind) | move(to)<<7 }

func (m move) from() int     { return int(m & 127) }
func (m move) to() int       { return int(m>>7) & 127 }
func (m move) promote() bool { return m&(1<<14) != 0 }
func (m move) isDrop() bool  { return m.from() >= dropBase }
func (m move) dropKind() int { return m.from() - dropBase }

// valid reports whether the packed bits name squares and a droppable kind.
func (m move) valid() bool {
	if m.to() >= 81 || m>>15 != 0 {
		return false
	}
	if m.isDrop() {
		return m.dropKind() >= kindRook && m.dropKind() < numKinds && !m.promote()
	}
	return true
}

// maxResolveDepth bounds the nesting of pawn-drop-mate tests (a pawn drop
// whose test must itself test a pawn drop...), which real games never reach.
const maxResolveDepth = 6

// pseudo appends the seat's moves that obey piece movement, captures and the
// drop restrictions that need no look-ahead (nifu, last rank, flipped king in
// front), but may leave its king in check.
func (p *Position) pseudo(seat int, out []move) []move {
	partner := p.partner(seat)
	for from, pc := range p.board {
		if pc != 0 && pc.owner() == seat && !pc.flipped() {
			out = p.pieceMoves(seat, partner, from, pc, out)
		}
	}
	return p.drops(seat, out, dropsAll)
}

// pieceMoves appends the moves of the seat's piece pc standing on from.
func (p *Position) pieceMoves(seat, partner, from int, pc piece, out []move) []move {
	sh := pc.shape()
	kind, facing := pc.kind(), pc.facing()
	mayPromote := !pc.promoted() && canPromote(kind)
	fromZone := mayPromote && inZone(from, facing)
	t := &stepTargets[sh][from]
	for _, n := range t[1 : 1+t[0]] {
		to := int(n)
		if t := p.board[to]; t != 0 {
			if o := t.owner(); o == seat || o == partner || t.kind() == kindKing {
				continue
			}
		}
		out = addMove(out, from, to, kind, facing, mayPromote, fromZone)
	}
	if !slides[sh] {
		return out
	}
	for d := 0; d < 8; d += 2 {
		for n := neighbour[from][d]; n >= 0; n = neighbour[n][d] {
			to := int(n)
			if t := p.board[to]; t != 0 {
				if o := t.owner(); o != seat && o != partner && t.kind() != kindKing {
					out = addMove(out, from, to, kind, facing, mayPromote, fromZone)
				}
				break
			}
			out = addMove(out, from, to, kind, facing, mayPromote, fromZone)
		}
	}
	return out
}

// addMove appends a move with its promotion forms: both when promotion is
// optional, only the promotion for a pawn reaching its last rank.
func addMove(out []move, from, to, kind, facing int, mayPromote, fromZone bool) []move {
	if !mayPromote || !(fromZone || inZone(to, facing)) {
		return append(out, boardMove(from, to, false))
	}
	out = append(out, boardMove(from, to, true))
	if kind != kindPawn || !onLastRank(to, facing) {
		out = append(out, boardMove(from, to, false))
	}
	return out
}

// Which drops drops lists.
const (
	dropsAll = iota
	dropsNoPawn
	dropsPawnOnly
)

// drops appends the seat's drops of the kinds that which selects.
func (p *Position) drops(seat int, out []move, which int) []move {
	hand := &p.hands[seat]
	if hand[kindRook]|hand[kindGold]|hand[kindSilver]|hand[kindPawn] == 0 {
		return out
	}
	facing := seatFacing(seat)
	var pawnLines uint32 // lines already holding the seat's unpromoted pawn of its own facing
	pawns := which != dropsNoPawn && hand[kindPawn] > 0
	if pawns {
		for sq, pc := range p.board {
			if pc.kind() == kindPawn && !pc.promoted() && pc.owner() == seat && pc.facing() == facing {
				pawnLines |= 1 << pawnLine(sq, facing)
			}
		}
	}
	var kinds [4]int
	nk := 0
	for _, k := range handKinds {
		if hand[k] > 0 && (k == kindPawn && pawns || k != kindPawn && which != dropsPawnOnly) {
			kinds[nk] = k
			nk++
		}
	}
	fwd := forwardDir(facing)
	for to, t := range p.board {
		if t != 0 {
			continue
		}
		for _, k := range kinds[:nk] {
			if k == kindPawn {
				ahead := neighbour[to][fwd]
				if ahead < 0 || pawnLines&(1<<pawnLine(to, facing)) != 0 || p.board[ahead].flipped() {
					continue
				}
			}
			out = append(out, dropMove(k, to))
		}
	}
	return out
}

// undo is what doMove needs to take a move back.
type undo struct {
	captured piece
	moved    piece
}

// doMove plays m for seat on the board and hands only: no turn, no mates.
func (p *Position) doMove(seat int, m move) undo {
	to := m.to()
	if m.isDrop() {
		k := m.dropKind()
		p.hands[seat][k]--
		p.board[to] = makePiece(k, seat, seatFacing(seat), false)
		if k == kindRook {
			p.moveRook(-1, int8(to))
		}
		return undo{}
	}
	from := m.from()
	u := undo{captured: p.board[to], moved: p.board[from]}
	if u.captured != 0 {
		p.hands[seat][u.captured.kind()]++
		if u.captured.kind() == kindRook {
			p.moveRook(int8(to), -1)
		}
	}
	pc := u.moved
	if pc.kind() == kindRook {
		p.moveRook(int8(from), int8(to))
	}
	if m.promote() {
		pc |= promotedBit
	}
	p.board[from] = 0
	p.board[to] = pc
	if pc.kind() == kindKing {
		p.kings[seat] = int8(to)
	}
	return u
}

// undoMove takes back doMove.
func (p *Position) undoMove(seat int, m move, u undo) {
	to := m.to()
	if m.isDrop() {
		p.hands[seat][m.dropKind()]++
		p.board[to] = 0
		if m.dropKind() == kindRook {
			p.moveRook(int8(to), -1)
		}
		return
	}
	from := m.from()
	if u.moved.kind() == kindRook {
		p.moveRook(int8(to), int8(from))
	}
	if u.captured != 0 {
		p.hands[seat][u.captured.kind()]--
		if u.captured.kind() == kindRook {
			p.moveRook(-1, int8(to))
		}
	}
	p.board[to] = u.captured
	p.board[from] = u.moved
	if u.moved.kind() == kindKing {
		p.kings[seat] = int8(from)
	}
}

// legality holds what the legality test of one seat's moves computes once.
type legality struct {
	seat, king  int
	inCheck     bool
	partner     int
	partnerSeen squareSet // who attacked the partner's king before the move
	// pins are the squares of the seat's pieces that alone stand between
	// its king and another seat's rook or dragon (the only sliders): only
	// they, and the king, can expose the king by moving.
	pins  [4]int8
	npins int
}

func (p *Position) newLegality(seat int) legality {
	l := legality{seat: seat, king: int(p.kings[seat]), partner: -1}
	l.inCheck = p.checks&(1<<seat) != 0
	if pt := p.partner(seat); pt >= 0 && p.live(pt) {
		l.partner = pt
		l.partnerSeen = p.attackers(int(p.kings[pt]), pt)
	}
	for _, r := range p.rooks {
		if r < 0 {
			continue
		}
		if pc := p.board[r]; pc.active() && pc.owner() != seat {
			if pin := p.pinned(l.king, int(r), seat); pin >= 0 {
				l.pins[l.npins] = int8(pin)
				l.npins++
			}
		}
	}
	return l
}

// pinned returns the square of the one piece of seat between king and the
// slider on rook when they share a line and nothing else stands between,
// else -1.
func (p *Position) pinned(king, rook, seat int) int {
	step := 0
	switch {
	case king/9 == rook/9:
		step = 1
	case king%9 == rook%9:
		step = 9
	default:
		return -1
	}
	if rook < king {
		step = -step
	}
	pin := -1
	for x := king + step; x != rook; x += step {
		if pc := p.board[x]; pc != 0 {
			if pin >= 0 || pc.owner() != seat {
				return -1
			}
			pin = x
		}
	}
	return pin
}

func (l *legality) isPinned(sq int) bool {
	for _, p := range l.pins[:l.npins] {
		if int(p) == sq {
			return true
		}
	}
	return false
}

// legal reports whether the pseudo-legal move m is legal: the own king is not
// left in check, in pairs no new check is given to the partner, and a pawn
// drop does not mate the player it checks. depth counts nested resolutions.
func (p *Position) legal(l *legality, m move, depth int) bool {
	seat := l.seat
	from := m.from()
	quick := !l.inCheck && l.partner < 0 && (m.isDrop() || (from != l.king && !l.isPinned(from)))
	if !quick {
		u := p.doMove(seat, m)
		ok := !p.attacked(int(p.kings[seat]), seat)
		if ok && l.partner >= 0 {
			ok = !p.newCheck(l, m)
		}
		p.undoMove(seat, m, u)
		if !ok {
			return false
		}
	}
	if m.isDrop() && m.dropKind() == kindPawn {
		return !p.pawnDropMates(seat, m, depth)
	}
	return true
}

// newCheck reports whether, after the move, a piece attacks the partner's king
// that did not attack it before (the moved piece counts as new).
func (p *Position) newCheck(l *legality, m move) bool {
	now := p.attackers(int(p.kings[l.partner]), l.partner)
	return !now.minus(l.partnerSeen).empty() || now.has(m.to())
}

// pawnDropMates reports whether a pawn drop checks a live king whose player
// is then mated before anyone else moves (uchifuzume, SPEC §4).
func (p *Position) pawnDropMates(seat int, m move, depth int) bool {
	ahead := neighbour[m.to()][forwardDir(seatFacing(seat))]
	if ahead < 0 {
		return false
	}
	t := p.board[ahead]
	if t.kind() != kindKing || t.flipped() || t.owner() == seat {
		return false
	}
	victim := t.owner()
	if depth >= maxResolveDepth {
		return false
	}
	q := *p
	q.doMove(seat, m)
	q.resolve(seat, depth+1)
	return !q.live(victim)
}

// legalMoves appends every legal move of the seat to move.
func (p *Position) legalMoves(out []move) []move {
	if p.turn < 0 {
		return out
	}
	seat := int(p.turn)
	start := len(out)
	return p.keepLegal(seat, p.pseudo(seat, out), start)
}

// keepLegal filters out[start:], seat's pseudo-legal moves, down to the
// legal ones, in place.
func (p *Position) keepLegal(seat int, out []move, start int) []move {
	l := p.newLegality(seat)
	n := start
	for _, m := range out[start:] {
		if p.legal(&l, m, 0) {
			out[n] = m
			n++
		}
	}
	return out[:n]
}

// countLegal is len(legalMoves) without listing them, for perft's last ply:
// out of check in singles, a piece that is neither the king nor pinned and
// a drop other than a pawn's are legal without a test.
func (p *Position) countLegal() int {
	if p.turn < 0 {
		return 0
	}
	seat := int(p.turn)
	l := p.newLegality(seat)
	if l.inCheck || l.partner >= 0 {
		var buf [256]move
		return len(p.legalMoves(buf[:0]))
	}
	var buf [128]move
	n := 0
	for from, pc := range p.board {
		if pc == 0 || pc.owner() != seat || pc.flipped() {
			continue
		}
		moves := p.pieceMoves(seat, -1, from, pc, buf[:0])
		if from != l.king && !l.isPinned(from) {
			n += len(moves)
			continue
		}
		for _, m := range moves {
			if p.legal(&l, m, 0) {
				n++
			}
		}
	}
	hand := &p.hands[seat]
	kinds := 0
	for _, k := range handKinds[:3] {
		if hand[k] > 0 {
			kinds++
		}
	}
	if kinds > 0 {
		empty := 0
		for _, pc := range p.board {
			if pc == 0 {
				empty++
			}
		}
		n += kinds * empty
	}
	if hand[kindPawn] > 0 {
		for _, m := range p.drops(seat, buf[:0], dropsPawnOnly) {
			if p.legal(&l, m, 0) {
				n++
			}
		}
	}
	return n
}

// hasLegalMove reports whether seat has any legal move. It stops at the
// first one found, trying the cheap moves first: the pieces one by one, then
// drops other than pawns, then pawn drops, whose test may need a look-ahead.
func (p *Position) hasLegalMove(seat, depth int) bool {
	var buf [128]move
	l := p.newLegality(seat)
	partner := p.partner(seat)
	for from, pc := range p.board {
		if pc == 0 || pc.owner() != seat || pc.flipped() {
			continue
		}
		for _, m := range p.pieceMoves(seat, partner, from, pc, buf[:0]) {
			if p.legal(&l, m, depth) {
				return true
			}
		}
	}
	for _, m := range p.drops(seat, buf[:0], dropsNoPawn) {
		if p.legal(&l, m, depth) {
			return true
		}
	}
	for _, m := range p.drops(seat, buf[:0], dropsPawnOnly) {
		if p.legal(&l, m, depth) {
			return true
		}
	}
	return false
}

// nextSeat is who moves after a move by (or the mate of) from: the nearest
// live seat in check clockwise from it, else its nearest live successor.
// It returns whether check priority decided, and refreshes the check cache.
func (p *Position) nextSeat(from int) (seat int, priority bool) {
	p.checks = 0
	seat = -1
	for i := 1; i < 4; i++ {
		s := (from + i) & 3
		if p.inCheck(s) {
			p.checks |= 1 << s
			if seat < 0 {
				seat = s
			}
		}
	}
	if seat >= 0 {
		return seat, true
	}
	return p.successor(from), false
}

// successor is the nearest live seat clockwise after from, or -1.
func (p *Position) successor(from int) int {
	for i := 1; i < 4; i++ {
		if s := (from + i) & 3; p.live(s) {
			return s
		}
	}
	return -1
}

// mateEnded reports whether the mates so far end the game.
func (p *Position) mateEnded() bool {
	switch {
	case p.rules.Pairs:
		return p.nmates >= 1
	case p.rules.LastPlayer:
		return p.liveCount() <= 1
	default:
		return p.nmates >= 2
	}
}

// resolve settles who moves after mover's move: check priority, then mates of
// players left without a legal move (each credited to mover), transfers,
// and the end by mates (turn -1). It returns whether check priority chose a
// seat other than the plain clockwise successor at any point.
func (p *Position) resolve(mover, depth int) (priority bool) {
	from := mover
	for {
		if p.mateEnded() {
			p.turn = -1
			return priority
		}
		next, prio := p.nextSeat(from)
		if next < 0 {
			p.turn = -1
			return priority
		}
		if prio && next != p.successor(from) {
			priority = true
		}
		if p.hasLegalMove(next, depth) {
			p.turn = int8(next)
			return priority
		}
		credit := mover
		if credit == next || !p.live(credit) {
			credit = noCredit // nobody else's move came before this mate
		}
		p.mate(next, credit)
		from = next
	}
}

// mate flips the seat's king and hands its pieces on: the hand to the
// credited seat, the board pieces to it (facing kept) or to nobody.
func (p *Position) mate(seat, credit int) {
	p.elim |= 1 << seat
	p.board[p.kings[seat]] |= flippedBit
	p.mates[p.nmates] = mateRecord{mated: int8(seat), mater: int8(credit)}
	p.nmates++
	if credit != noCredit {
		for _, k := range handKinds {
			p.hands[credit][k] += p.hands[seat][k]
		}
	}
	p.hands[seat] = [numKinds]uint8{}
	heir := credit
	if heir == noCredit || p.rules.Ownerless {
		heir = ownerless
	}
	for sq, pc := range p.board {
		if pc != 0 && pc.owner() == seat && !pc.flipped() {
			p.board[sq] = pc.withOwner(heir)
		}
	}
}

// play applies a legal move of the seat to move and settles the turn.
func (p *Position) play(m move) (priority bool) {
	seat := int(p.turn)
	p.doMove(seat, m)
	p.ply++
	return p.resolve(seat, 0)
}
