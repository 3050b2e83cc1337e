package rules

import (
	"sync/atomic"
	"unsafe"

	"github.com/banmen/banmen/sdk"
)

// Result reason keys (i18n).
const (
	ReasonCheckmate      = "result.checkmate"
	ReasonStalemate      = "result.stalemate"
	ReasonRepetition     = "result.repetition"
	ReasonPerpetualCheck = "result.perpetual_check"
	ReasonDeclaration    = "result.declaration"
	ReasonResignation    = "result.resignation"
)

// record is one played move and what it did. Its texts are in the
// game's hist entry of the same index (Move: the USI text, DeclareMove or
// sdk.Resign; Text: Japanese with the side mark; Alt: western), so that a
// cached game holds each text once: its pointers are what the collector
// scans.
type record struct {
	seat  int
	m     Move // 0 for a declaration, a resignation or an abandonment
	check bool // the move gave check
}

// game is a whole game: where it started, every move, and what the rules
// made of them. It is rebuilt from the State, replaying and checking every
// move, so no stored byte is trusted; or it is one this process built and
// cached under the exact bytes it returned (cache.go), and then it is
// shared and never changed.
type game struct {
	// startSFEN is the start position's SFEN (history[0], start()),
	// which every State begins with, and startNum its move number (kept
	// here: push reads it every move, and history[0] is cold by then).
	startNum  int
	startSFEN string
	pos       Position
	records   []record
	// hist is the View's History, one entry per record, made when the
	// move is played: a View shares it (capped, so that an append copies)
	// instead of building a list as long as the game at every move.
	hist []sdk.PlayedMove
	// moves is the State's list of the records (state.go: seat byte,
	// length byte, text each), kept as the records grow, so that encoding
	// copies it whole instead of writing every move again.
	moves []byte
	// history[i] is the position after i plies, for repetition; keys[i]
	// its repetition key.
	history []Position
	keys    []uint64
	// prev[i] is the last ply before i whose position has the key keys[i]
	// (-1: none), so that counting a position's occurrences walks only
	// its own earlier occurrences, whatever the game's length. lastAt maps
	// a key to its latest ply; it is shared along a line of first forks
	// (cache.go) and rebuilt from keys by any other fork (nil).
	prev   []int32
	lastAt map[uint64]int32
	result *sdk.Result
	// legal is every legal move of pos, made once per position by judge:
	// play checks a move against it and names the move with it, judge
	// needs only its length, view lists it. A cached game shares it with
	// its forks, read only; ownLegal tells whether this game made it (and
	// may reuse its array). spare is an array of this game's own for the
	// next position's list, so replaying a State does not allocate a list
	// per move.
	legal    []Move
	ownLegal bool
	spare    []Move
	// last is the last board move as a View's LastMove, when hasLast
	// (resignations and declarations are not board moves).
	last    sdk.LegalMove
	hasLast bool
	// forked is set by the first fork (cache.go).
	forked atomic.Bool
}

func newGame(start Position) *game {
	start.rehash()
	g := &game{startSFEN: start.SFEN(), startNum: start.moveNum, pos: start}
	g.history = append(g.history, start)
	g.keys = append(g.keys, start.key())
	g.prev = append(g.prev, -1)
	g.lastAt = map[uint64]int32{g.keys[0]: 0}
	// A set-up position may already be lost for the side to move.
	g.judge()
	return g
}

// start is where the game started: history[0], which only grows after it
// (a copy in the game would be copied by every fork).
func (g *game) start() *Position { return &g.history[0] }

// ply is the number of moves played, resignations and declarations included.
func (g *game) ply() int { return len(g.records) }

// over tells whether the game has ended.
func (g *game) over() bool { return g.result != nil }

// prevTo is the target cell of the last board move (for 同), 0 when none.
func (g *game) prevTo() int {
	if n := len(g.records); n > 0 {
		if m := g.records[n-1].m; m != 0 {
			return m.to()
		}
	}
	return 0
}

// play applies a move of seat, checking everything. On error g is unchanged.
func (g *game) play(seat int, mv sdk.Move) error {
	if g.over() {
		return sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	if seat != sente && seat != gote {
		return sdk.Errorf(sdk.CodeNotYourTurn, "shogi has seats 0 and 1, not %d", seat)
	}
	if len(g.records) >= maxStateMoves {
		return sdk.Errorf(sdk.CodeIllegalMove, "the game has reached the longest record kept (%d moves)", maxStateMoves)
	}
	if mv == sdk.Resign {
		g.push(record{seat: seat}, mv, marks[seat]+"投了", "resigns")
		g.result = &sdk.Result{Winners: []sdk.Seat{sdk.Seat(seat ^ 1)}, Reason: ReasonResignation}
		return nil
	}
	if mv == sdk.Abandon {
		// The host's move for a player who left (a claimed win): an
		// ending of its own in the View and the records (kif.go, csa.go).
		g.push(record{seat: seat}, mv, marks[seat]+"対局放棄", "left the game")
		g.result = &sdk.Result{Winners: []sdk.Seat{sdk.Seat(seat ^ 1)}, Reason: sdk.ReasonAbandoned}
		return nil
	}
	if seat != g.pos.side {
		return sdk.Errorf(sdk.CodeNotYourTurn, "it is %s's turn", colorName[g.pos.side])
	}
	if mv == DeclareMove {
		if !g.pos.canDeclare() {
			return sdk.Errorf(sdk.CodeIllegalMove, "the entering-king declaration is not valid now")
		}
		g.push(record{seat: seat}, mv, marks[seat]+"入玉宣言", "declares")
		g.result = &sdk.Result{Winners: []sdk.Seat{sdk.Seat(seat)}, Reason: ReasonDeclaration}
		return nil
	}
	m, err := ParseUSI(string(mv))
	if err != nil {
		return err
	}
	legal := g.legal
	if !containsMove(legal, m) {
		return sdk.Errorf(sdk.CodeIllegalMove, "%s is not a legal move here", mv)
	}
	// The move's three texts share one allocation.
	n := namer{p: &g.pos, legal: legal, prevTo: g.prevTo(), one: true}
	b := make([]byte, 0, 48)
	b = m.appendUSI(b)
	u := len(b)
	b = n.appendText(b, m) // seat is the side to move
	t := len(b)
	b = n.appendWestern(b, m)
	texts := unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
	g.pos.do(m)
	g.pos.moveNum++
	g.push(record{seat: seat, m: m, check: g.pos.inCheck()}, sdk.Move(texts[:u]), texts[u:t], texts[t:])
	g.last, g.hasLast = legalMoveUSI(seat, m, texts[:u], texts[u:t], texts[t:]), true
	g.history = append(g.history, g.pos)
	g.keys = append(g.keys, g.pos.key())
	g.link()
	g.judge()
	return nil
}

// link sets prev for the position just appended to keys and records it in
// lastAt: one map lookup a move, whatever the game's length.
func (g *game) link() {
	n := len(g.keys) - 1
	k := g.keys[n]
	if g.lastAt == nil {
		g.rebuildLastAt(n)
	}
	j, ok := g.lastAt[k]
	if ok && (int(j) >= n || g.keys[j] != k) {
		// An entry of another line of play (never along a line of first
		// forks, so this is only a defence): start afresh.
		g.rebuildLastAt(n)
		j, ok = g.lastAt[k]
	}
	if !ok {
		j = -1
	}
	g.prev = append(g.prev, j)
	g.lastAt[k] = int32(n)
}

// rebuildLastAt makes lastAt from keys[:n].
func (g *game) rebuildLastAt(n int) {
	g.lastAt = make(map[uint64]int32, n)
	for i, k := range g.keys[:n] {
		g.lastAt[k] = int32(i)
	}
}

// push appends a played move, with its texts, to records, hist and moves.
func (g *game) push(r record, move sdk.Move, text, alt string) {
	h := sdk.PlayedMove{Seat: sdk.Seat(r.seat), Move: move, Text: text, Alt: alt}
	// KIF numbers the moves from the start position's move number
	// (kif.go); from the usual 1 the list's own numbers say the same.
	if g.startNum > 1 {
		h.Number = g.startNum + len(g.records)
	}
	g.records = append(g.records, r)
	g.hist = append(g.hist, h)
	g.moves = append(g.moves, byte(r.seat), byte(len(move)))
	g.moves = append(g.moves, move...)
}

// before returns the position record i was played in and the target of the
// board move before it (for 同), for the KIF and CSA texts. Only the last
// record may be a resignation or a declaration, which leave no position,
// so history[i] is the position before record i.
func (g *game) before(i int) (*Position, int) {
	prevTo := 0
	if i > 0 && g.records[i-1].m != 0 {
		prevTo = g.records[i-1].m.to()
	}
	return &g.history[i], prevTo
}

func containsMove(list []Move, m Move) bool {
	for _, x := range list {
		if x == m {
			return true
		}
	}
	return false
}

// judge ends the game after a board move when the rules say so: no legal
// move (checkmate or stalemate, both lost by the side to move), or the
// fourth occurrence of a position (a draw, or a loss for the side that gave
// check with every move of the cycle).
func (g *game) judge() {
	mover := g.pos.side ^ 1
	// Generated in a pooled array (scratch), then copied into the spare
	// array or one of the exact size: a forked game has no spare, and growing a list from
	// nothing was some eight allocations a move.
	sc := scratches.Get().(*scratch)
	defer scratches.Put(sc)
	list := g.pos.legalMoves(sc.moves[:0])
	var next []Move
	if cap(g.spare) >= len(list) {
		next = append(g.spare[:0], list...)
	} else {
		next = append(make([]Move, 0, len(list)), list...)
	}
	if g.ownLegal {
		g.spare = g.legal
	} else {
		g.spare = nil
	}
	g.legal, g.ownLegal = next, true
	if len(g.legal) == 0 {
		reason := ReasonStalemate
		if g.pos.inCheck() {
			reason = ReasonCheckmate
		}
		g.result = &sdk.Result{Winners: []sdk.Seat{sdk.Seat(mover)}, Reason: reason}
		return
	}
	n := len(g.keys) - 1
	first, count := -1, 0
	// Only the earlier positions with the same key can be the same (prev
	// links them); the walk ends at the fourth, which ends the game.
	for i := n; i >= 0 && count < 4; i = int(g.prev[i]) {
		if g.history[i].sameAs(&g.pos) {
			count++
			first = i
		}
	}
	if count < 4 {
		return
	}
	// The moves of the cycle are those played from the first occurrence on:
	// records[first:] (record i leads from history[i] to history[i+1]).
	var allCheck [2]bool
	allCheck[sente], allCheck[gote] = true, true
	for _, r := range g.records[first:] {
		if !r.check {
			allCheck[r.seat] = false
		}
	}
	switch {
	case allCheck[sente] && !allCheck[gote]:
		g.result = &sdk.Result{Winners: []sdk.Seat{gote}, Reason: ReasonPerpetualCheck}
	case allCheck[gote] && !allCheck[sente]:
		g.result = &sdk.Result{Winners: []sdk.Seat{sente}, Reason: ReasonPerpetualCheck}
	default:
		g.result = &sdk.Result{Draw: true, Reason: ReasonRepetition}
	}
}

// declarePoints returns what the entering-king declaration counts for the
// side to move: whether its king stands in the enemy camp, how many other
// own pieces stand there, and the points of those pieces and the hand
// (rook and bishop, promoted or not, 5; every other piece but the king 1).
func (p *Position) declarePoints() (kingIn bool, pieces, points int) {
	c := p.side
	ks := p.kingSq[c]
	if ks == 0 || !zone[c][ks] {
		return false, 0, 0
	}
	flag := colorFlag[c]
	for _, sq := range squares {
		pc := p.b[sq]
		if pc&colorMask != flag || !zone[c][sq] || kindOf(pc) == king {
			continue
		}
		pieces++
		if b := baseKind[kindOf(pc)]; b == rook || b == bishop {
			points += 5
		} else {
			points++
		}
	}
	for k := pawn; k <= gold; k++ {
		w := 1
		if k == rook || k == bishop {
			w = 5
		}
		points += w * int(p.hand[c][k])
	}
	return true, pieces, points
}

// declareThreshold is the points a declaration needs: 28 for Sente, 27 for
// Gote.
var declareThreshold = [2]int{28, 27}

// canDeclare tells whether the side to move may declare and win: king in the
// enemy camp and not in check, ten more own pieces there, and enough points.
func (p *Position) canDeclare() bool {
	in, pieces, points := p.declarePoints()
	return in && pieces >= 10 && points >= declareThreshold[p.side] && !p.inCheck()
}
