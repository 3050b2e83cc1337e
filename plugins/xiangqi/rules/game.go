package rules

import (
	"unsafe"

	"github.com/banmen/banmen/sdk"
)

// The game's end rules, beyond "no legal move loses":
//
//   - Repetition: when a position (board and side to move) occurs for the
//     third time, the game ends. The cycle is every move from the first of the
//     three occurrences to now. If exactly one side gave check with every one
//     of its moves in the cycle, that side loses ("result.perpetual_check");
//     otherwise it is a draw ("result.repetition"). No chase rules.
//   - 60-move rule: after 120 plies without a capture or a soldier moving
//     forward the game is drawn ("result.sixty_moves"). A sideways soldier
//     move does not reset the count.
//
// When several apply after one move, no legal move (checkmate, stalemate)
// comes first, then repetition, then the 60-move rule.

// The result reasons, i18n keys.
const (
	ReasonCheckmate      = "result.checkmate"
	ReasonStalemate      = "result.stalemate"
	ReasonRepetition     = "result.repetition"
	ReasonPerpetualCheck = "result.perpetual_check"
	ReasonSixtyMoves     = "result.sixty_moves"
	ReasonResignation    = "result.resignation"
)

// sixtyMovePlies is the length of the 60-move rule in plies.
const sixtyMovePlies = 120

// noResign marks a game nobody resigned.
const noResign = 0xFF

// Game is a game record, the start position and the moves, with everything
// the record implies (the current position, the repetition history, the move
// texts and the result), which is always recomputed from the record.
type Game struct {
	start    Position
	moves    []Move
	resigned Color // noResign, or the side that resigned
	// abandoned: the side that resigned left the game (sdk.Abandon, a
	// claimed win), an ending of its own.
	abandoned bool

	pos    Position
	keys   []key    // keys[i]: the position after i moves
	hashes []uint64 // hashes[i]: the Zobrist hash of the position after i moves
	checks []bool   // checks[i]: move i left the opponent in check
	texts  []string // texts[i]: the WXF text of move i
	hanzi  []string // hanzi[i]: the Chinese text of move i
	uccis  []string // uccis[i]: the UCCI text of move i, for the View's History
	// hist is the View's History of the moves, made as they are played: a
	// View shares it (capped, so that an append copies) instead of
	// building a list as long as the game at every move.
	hist   []sdk.PlayedMove
	result *sdk.Result
}

// NewGame starts a game from a position.
func NewGame(start *Position) *Game {
	g := &Game{start: *start, pos: *start, resigned: noResign}
	g.keys = append(g.keys, g.pos.key())
	g.hashes = append(g.hashes, g.pos.hash)
	g.adjudicate()
	return g
}

// Position returns the current position (a copy).
func (g *Game) Position() *Position { p := g.pos; return &p }

// Over reports whether the game has ended.
func (g *Game) Over() bool { return g.result != nil }

// Result is how the game ended, nil while it is on.
func (g *Game) Result() *sdk.Result { return g.result }

// Play applies a move of the side to move, checking it.
func (g *Game) Play(m Move) error {
	if g.result != nil {
		return sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	if len(g.moves) >= maxStateMoves {
		return sdk.Errorf(sdk.CodeIllegalMove, "the game has reached the longest record kept (%d moves)", maxStateMoves)
	}
	if !g.pos.isLegal(m) {
		return sdk.Errorf(sdk.CodeIllegalMove, "%s is not a legal move here", UCCI(m))
	}
	g.apply(m)
	return nil
}

// apply plays a legal move and updates what the record implies.
func (g *Game) apply(m Move) {
	p := &g.pos
	// The move's three texts share one allocation.
	w := p.wxf(m)
	b := make([]byte, 0, 4+4+12)
	b = appendUCCI(b, m)
	b = append(b, w[:]...)
	b = p.appendChinese(b, m, w)
	texts := unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
	i := len(g.moves)
	g.uccis = append(g.uccis, texts[:4])
	g.texts = append(g.texts, texts[4:8])
	g.hanzi = append(g.hanzi, texts[8:])
	// WXF numbers a Red move and Black's reply together (exportWXF).
	g.hist = append(g.hist, sdk.PlayedMove{Seat: sdk.Seat(g.start.side ^ Color(i&1)), Move: sdk.Move(texts[:4]),
		Text: texts[4:8], Alt: texts[8:], Number: g.start.move + (i+int(g.start.side))/2})
	pc := p.board[m.From()]
	irreversible := p.board[m.To()] != Empty ||
		(pc.Kind() == Pawn && int(m.To())-int(m.From()) == forward[p.side])
	if p.side == Black {
		p.move++
	}
	p.make(m)
	if irreversible {
		p.clock = 0
	} else {
		p.clock++
	}
	g.moves = append(g.moves, m)
	g.keys = append(g.keys, p.key())
	g.hashes = append(g.hashes, p.hash)
	g.checks = append(g.checks, p.InCheck())
	g.adjudicate()
}

// Resign ends the game as a loss for side c.
func (g *Game) Resign(c Color) error {
	if g.result != nil {
		return sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	g.resigned = c
	g.result = &sdk.Result{Winners: []sdk.Seat{sdk.Seat(c ^ 1)}, Reason: ReasonResignation}
	return nil
}

// Abandon ends the game as a loss for side c, whose player left it (the
// host's sdk.Abandon when the other claims the win).
func (g *Game) Abandon(c Color) error {
	if err := g.Resign(c); err != nil {
		return err
	}
	g.abandoned = true
	g.result.Reason = sdk.ReasonAbandoned
	return nil
}

// end ends the game as g's own ended: the same side resigning or leaving.
func (r *Game) end(g *Game) error {
	if g.abandoned {
		return r.Abandon(g.resigned)
	}
	return r.Resign(g.resigned)
}

// adjudicate sets the result when the current position ends the game.
func (g *Game) adjudicate() {
	p := &g.pos
	if !p.hasLegalMove() {
		reason := ReasonStalemate
		if p.InCheck() {
			reason = ReasonCheckmate
		}
		g.result = &sdk.Result{Winners: []sdk.Seat{sdk.Seat(p.side ^ 1)}, Reason: reason}
		return
	}
	if first, ok := g.thirdOccurrence(); ok {
		g.result = g.repetitionResult(first)
		return
	}
	if p.clock >= sixtyMovePlies {
		g.result = &sdk.Result{Draw: true, Reason: ReasonSixtyMoves}
	}
}

// thirdOccurrence reports whether the current position has now occurred
// three times and, if so, the ply of its first occurrence. Only the plies
// since the last capture or forward soldier move can repeat.
func (g *Game) thirdOccurrence() (first int, ok bool) {
	ply := len(g.moves)
	window := min(g.pos.clock, ply)
	cur := &g.keys[ply]
	seen := 1
	for back := 2; back <= window; back += 2 {
		if g.keys[ply-back] == *cur {
			if seen++; seen == 3 {
				return ply - back, true
			}
		}
	}
	return 0, false
}

// repetitionResult decides a repetition whose cycle began at ply first.
func (g *Game) repetitionResult(first int) *sdk.Result {
	var always [2]bool
	always[0], always[1] = true, true
	for i := first; i < len(g.moves); i++ {
		mover := g.start.side ^ Color(i&1)
		if !g.checks[i] {
			always[mover] = false
		}
	}
	if always[Red] != always[Black] {
		loser := Red
		if always[Black] {
			loser = Black
		}
		return &sdk.Result{Winners: []sdk.Seat{sdk.Seat(loser ^ 1)}, Reason: ReasonPerpetualCheck}
	}
	return &sdk.Result{Draw: true, Reason: ReasonRepetition}
}

// History returns, for search, the recent past of the game: the hashes of
// the positions since the last capture or forward soldier move, oldest
// first, ending with the current position, and checks[i], whether the move
// that led to hashes[i+1] gave check. Earlier positions can never recur.
func (g *Game) History() (hashes []uint64, checks []bool) {
	n := len(g.moves)
	from := n - min(g.pos.clock, n)
	return g.hashes[from:], g.checks[from:]
}

// After returns the result that playing the legal move m would give by the
// game's rules (checkmate, stalemate, repetition, perpetual check, the
// 60-move rule), or nil when the game would go on. The game is unchanged.
func (g *Game) After(m Move) *sdk.Result {
	after := *g
	// Full slice expressions make apply copy rather than write into g's
	// backing arrays.
	after.moves = g.moves[:len(g.moves):len(g.moves)]
	after.keys = g.keys[:len(g.keys):len(g.keys)]
	after.hashes = g.hashes[:len(g.hashes):len(g.hashes)]
	after.checks = g.checks[:len(g.checks):len(g.checks)]
	after.texts = g.texts[:len(g.texts):len(g.texts)]
	after.hanzi = g.hanzi[:len(g.hanzi):len(g.hanzi)]
	after.uccis = g.uccis[:len(g.uccis):len(g.uccis)]
	after.hist = g.hist[:len(g.hist):len(g.hist)]
	after.apply(m)
	return after.result
}

// Moves returns the number of moves played.
func (g *Game) Moves() int { return len(g.moves) }

// FENUCCI is the game in the "fen+ucci" notation, "fen <FEN> moves ...": the
// text that follows "position " in the UCCI protocol.
func (g *Game) FENUCCI() string { return g.exportFENUCCI() }

// DecodeState opens a state, replaying and checking its record (code
// bad_state for anything impossible).
func DecodeState(s sdk.State) (*Game, error) { return replayState(s) }
