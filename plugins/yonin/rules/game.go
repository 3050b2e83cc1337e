package rules

import (
	"sort"

	"github.com/banmen/banmen/sdk"
)

// Reasons a game ends, as Result.Reason i18n keys.
const (
	reasonTwoMates   = "result.two_mates"
	reasonLastPlayer = "result.last_player"
	reasonTeamMate   = "result.team_mate"
	reasonRepetition = "result.repetition"
	reasonMoveLimit  = "result.move_limit"
)

// game is a whole game: settings, initial position, the moves and what they
// led to. It is rebuilt from the state by replaying the moves, so nothing in
// it is ever trusted from the bytes.
type game struct {
	set    settings
	start  Position
	pos    Position
	moves  []move
	movers []int8
	checks []bool // whether each move left a piece of its mover attacking a live king
	keys   []string
	// history[i] is move i as the View lists it, and last the last move's
	// full record: written when the move is played, from the position
	// before it, so that a View need not replay the game for its texts.
	history []sdk.PlayedMove
	last    sdk.LegalMove
	// counts is how often each position has occurred. Once the game is
	// cached (cache.go) its first fork takes the map over and plays on it,
	// so a cached game must never read it again: legalMoves, made before
	// the game is cached, is what its View lists.
	counts map[string]int
	maxRep int // the highest occurrence count of any position
	// legalMoves is legal(), made once by remember before the game is shared.
	legalMoves []move
	haveLegal  bool
	end        string // the ending reason, "" while playing
	// priority and mated describe the last move: whether check priority
	// skipped a turn, and how many mates followed it.
	priority bool
	mated    int
}

func newGame(set settings, start Position) *game {
	g := &game{set: set, start: start, pos: start, counts: map[string]int{}}
	k := start.key()
	g.keys = append(g.keys, k)
	g.counts[k] = 1
	g.maxRep = 1
	if start.turn < 0 {
		g.end = mateReason(&start)
	}
	return g
}

func mateReason(p *Position) string {
	switch {
	case p.rules.Pairs:
		return reasonTeamMate
	case p.rules.LastPlayer:
		return reasonLastPlayer
	default:
		return reasonTwoMates
	}
}

// outcome is a move tried on the game's position: the position after it and
// whether it gave check.
type outcome struct {
	pos      Position
	check    bool
	priority bool
}

func (g *game) try(m move) outcome {
	o := outcome{pos: g.pos}
	seat := int(g.pos.turn)
	o.pos.doMove(seat, m)
	o.check = o.pos.checksBy(seat)
	o.pos.ply++
	o.priority = o.pos.resolve(seat, 0)
	return o
}

// forbiddenRepetition reports whether the outcome is the fourth occurrence of
// a position that the mover has kept checking in since its first occurrence:
// the perpetual checker must avoid it (SPEC §4).
func (g *game) forbiddenRepetition(o *outcome) bool {
	if !o.check || o.pos.turn < 0 {
		return false
	}
	k := o.pos.key()
	if g.counts[k] < 3 {
		return false
	}
	first := 0
	for first < len(g.keys) && g.keys[first] != k {
		first++
	}
	seat := g.pos.turn
	for i := first; i < len(g.moves); i++ {
		if g.movers[i] == seat && !g.checks[i] {
			return false
		}
	}
	return true
}

// mayRepeatPerpetually reports whether the seat to move has checked on every
// move since the first occurrence of some position seen three times: only
// then can a move of theirs be a forbidden fourth repetition. It keeps the
// costly per-move test off ordinary turns.
func (g *game) mayRepeatPerpetually() bool {
	seat := g.pos.turn
	quiet := -1 // the seat's last non-checking move
	for i := len(g.moves) - 1; i >= 0; i-- {
		if g.movers[i] == seat && !g.checks[i] {
			quiet = i
			break
		}
	}
	seen := map[string]bool{}
	for _, k := range g.keys[:quiet+1] {
		seen[k] = true
	}
	for _, k := range g.keys[quiet+1:] {
		if g.counts[k] >= 3 && !seen[k] {
			return true
		}
	}
	return false
}

// legal returns every legal move of the seat to move, none once it is over.
// The slice may be shared: callers must not change it.
func (g *game) legal() []move {
	if g.haveLegal {
		return g.legalMoves
	}
	if g.end != "" {
		return nil
	}
	moves := g.pos.legalMoves(nil)
	if g.maxRep < 3 || !g.mayRepeatPerpetually() {
		return moves
	}
	n := 0
	for _, m := range moves {
		o := g.try(m)
		if !g.forbiddenRepetition(&o) {
			moves[n] = m
			n++
		}
	}
	return moves[:n]
}

// play checks and applies a move of seat.
func (g *game) play(seat int, m move) error {
	if g.end != "" {
		return sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	if seat != int(g.pos.turn) {
		return sdk.Errorf(sdk.CodeNotYourTurn, "it is %c's turn", seatUpper[g.pos.turn])
	}
	if !m.valid() {
		return sdk.Errorf(sdk.CodeBadMove, "malformed move")
	}
	if len(g.moves) >= maxStateMoves {
		return sdk.Errorf(sdk.CodeIllegalMove, "the game has reached the longest record kept (%d moves)", maxStateMoves)
	}
	if !g.isLegal(m) {
		return sdk.Errorf(sdk.CodeIllegalMove, "%s is not legal here", moveText(seat, m))
	}
	o := g.try(m)
	if g.forbiddenRepetition(&o) {
		return sdk.Errorf(codePerpetualCheck, "%s would repeat the position a fourth time by perpetual check", moveText(seat, m))
	}
	g.apply(m, &o)
	return nil
}

// codePerpetualCheck rejects the perpetual checker's repeating move.
const codePerpetualCheck = "perpetual_check"

// isLegal reports whether m is among the seat to move's legal moves, before
// the repetition rule.
func (g *game) isLegal(m move) bool {
	p := &g.pos
	var buf [256]move
	for _, c := range p.pseudo(int(p.turn), buf[:0]) {
		if c == m {
			l := p.newLegality(int(p.turn))
			return p.legal(&l, m, 0)
		}
	}
	return false
}

func (g *game) apply(m move, o *outcome) {
	seat := g.pos.turn
	before := g.pos.nmates
	g.last = legalMove(&g.pos, int(seat), m)
	g.history = append(g.history, sdk.PlayedMove{Seat: g.last.Seat, Move: g.last.Move, Text: g.last.Text})
	g.moves = append(g.moves, m)
	g.movers = append(g.movers, seat)
	g.checks = append(g.checks, o.check)
	g.pos = o.pos
	g.priority = o.priority
	g.mated = int(g.pos.nmates - before)
	k := g.pos.key()
	g.keys = append(g.keys, k)
	g.counts[k]++
	g.maxRep = max(g.maxRep, g.counts[k])
	switch {
	case g.pos.turn < 0:
		g.end = mateReason(&g.pos)
	case g.counts[k] >= 4:
		g.end = reasonRepetition
	case g.pos.rules.Limit > 0 && g.pos.ply >= g.pos.rules.Limit:
		g.end = reasonMoveLimit
	}
	if g.end != "" {
		g.pos.turn = -1
	}
}

// result is the ranking of an ended game (nil while playing).
func (g *game) result() *sdk.Result {
	if g.end == "" {
		return nil
	}
	p := &g.pos
	res := &sdk.Result{Reason: g.end}
	if p.rules.Pairs {
		if p.nmates == 0 { // a repetition or the move limit before any mate
			res.Draw = true
			return res
		}
		loser := int(p.mates[0].mated) & 1
		res.Places = make([]int, 4)
		for s := range 4 {
			res.Places[s] = 1
			if s&1 == loser {
				res.Places[s] = 3
			}
		}
	} else {
		res.Places = g.places()
	}
	for s, pl := range res.Places {
		if pl == 1 {
			res.Winners = append(res.Winners, sdk.Seat(s))
		}
	}
	return res
}

// places ranks the seats of an ended singles game: the live seats by mates
// made, then pieces (with the flipped kings they mated, except at the move
// limit), then the later last mate (not at the move limit); full equality
// shares a place. Mated seats come below, the later mated higher.
func (g *game) places() []int {
	p := &g.pos
	limit := g.end == reasonMoveLimit
	type rank struct {
		seat  int
		keys  [3]int
		mated bool
	}
	var ranks []rank
	for s := range 4 {
		r := rank{seat: s}
		if p.live(s) {
			r.keys[0] = p.Score(s)
			r.keys[1] = p.pieceCount(s, !limit)
			r.keys[2] = -1
			if !limit {
				for i, m := range p.mates[:p.nmates] {
					if int(m.mater) == s {
						r.keys[2] = i
					}
				}
			}
		} else {
			r.mated = true
			for i, m := range p.mates[:p.nmates] {
				if int(m.mated) == s {
					r.keys = [3]int{-1, i, 0}
				}
			}
		}
		ranks = append(ranks, r)
	}
	better := func(a, b rank) bool {
		if a.mated != b.mated {
			return !a.mated
		}
		for i := range a.keys {
			if a.keys[i] != b.keys[i] {
				return a.keys[i] > b.keys[i]
			}
		}
		return false
	}
	sort.SliceStable(ranks, func(i, j int) bool { return better(ranks[i], ranks[j]) })
	places := make([]int, 4)
	for i, r := range ranks {
		places[r.seat] = i + 1
		if i > 0 && !better(ranks[i-1], r) {
			places[r.seat] = places[ranks[i-1].seat]
		}
	}
	return places
}
