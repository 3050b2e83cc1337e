package engine

import (
	"context"
	"math"
	"time"

	"github.com/banmen/banmen/plugins/xiangqi/rules"
)

// Score bounds. A mate found at ply n scores mate-n, so nearer mates score
// higher; anything beyond mateBound is a forced win or loss.
const (
	mate      int32 = 30000
	mateBound int32 = mate - 1000
	infinity  int32 = 32000
	maxPly          = 128
	// sixtyMovePlies is the 60-move rule's length (rules/game.go).
	sixtyMovePlies = 120
)

// Limits bound one search. Every zero field means "no limit", but a search
// always stops at maxPly iterations.
type Limits struct {
	Depth int // deepest iteration
	// Nodes aborts the search when reached; SoftNodes stops it from starting
	// a new iteration once reached. Both count, unlike time, the same on
	// every machine, so a node-limited search is reproducible.
	Nodes, SoftNodes uint64
	Deadline         time.Time // aborts the search (the last iteration is used)
	// SoftDeadline stops it from starting an iteration that would most
	// likely be cut short and wasted.
	SoftDeadline time.Time
	// Contempt is how much the searching side dislikes a draw.
	Contempt int32
	// Plain turns off the selective prunings (reverse futility, null move,
	// futility, late-move reductions and pruning): a full-width search sees
	// every mate within its depth, at the cost of depth.
	Plain bool
	// Ends are the fixed scores, for the side to move, of root moves that end
	// the game by its rules (from rules.Game.After).
	Ends map[rules.Move]int32
}

// Result is what a search found.
type Result struct {
	Move     rules.Move
	Score    int32 // for the side to move
	Depth    int   // the last completed iteration
	Nodes    uint64
	Complete bool // no deadline or cancellation cut it short
	PV       []rules.Move
}

// frame is one position on the path from the game's recent past to the
// node being searched.
type frame struct {
	hash  uint64
	check bool // the side to move is in check: the move to here gave check
	clock int  // plies since a capture or a forward soldier move
}

// searcher is one search's working memory. It is reused between searches
// (pooled) but cleared at the start of each.
type searcher struct {
	pos      *rules.Position
	tt       *table
	stack    []frame
	killers  [maxPly + 1][2]rules.Move
	history  [1 << 16]int32 // by move (from<<8 | to)
	nodes    uint64
	lim      Limits
	ctx      context.Context
	stopped  bool
	finish   bool // the first iteration runs to its end whatever the clock says
	depth    int  // the iteration's depth, which bounds check extensions
	rootSide rules.Color
	rootPly  int // index in stack of the root
	pv       [maxPly + 1][maxPly + 1]rules.Move
	pvLen    [maxPly + 1]int
}

// lmr[d][n] is the late-move reduction at depth d for the n-th move.
var lmr [64][64]int

func init() {
	for d := 1; d < 64; d++ {
		for n := 1; n < 64; n++ {
			lmr[d][n] = int(0.5 + math.Log(float64(d))*math.Log(float64(n))/2.25)
		}
	}
}

func newSearcher(ttBits uint) *searcher {
	return &searcher{tt: newTable(ttBits), stack: make([]frame, 0, 512)}
}

// reset prepares for a new search of pos, whose recent past (as from
// rules.Game.History, ending with pos) is hashes and checks.
func (s *searcher) reset(ctx context.Context, pos *rules.Position, hashes []uint64, checks []bool, lim Limits) {
	s.tt.clear()
	s.killers = [maxPly + 1][2]rules.Move{}
	clear(s.history[:])
	s.pos, s.ctx, s.lim = pos, ctx, lim
	s.nodes, s.stopped, s.finish = 0, false, false
	s.rootSide = pos.Side()
	s.stack = s.stack[:0]
	if len(hashes) == 0 || hashes[len(hashes)-1] != pos.Hash() {
		hashes, checks = []uint64{pos.Hash()}, nil
	}
	base := pos.Clock() - (len(hashes) - 1)
	for i, h := range hashes {
		f := frame{hash: h, clock: base + i}
		if i > 0 && i-1 < len(checks) {
			f.check = checks[i-1]
		}
		s.stack = append(s.stack, f)
	}
	s.stack[len(s.stack)-1].check = pos.InCheck()
	s.rootPly = len(s.stack) - 1
}

func (s *searcher) push(check, irreversible bool) {
	clock := 0
	if !irreversible {
		clock = s.stack[len(s.stack)-1].clock + 1
	}
	s.stack = append(s.stack, frame{hash: s.pos.Hash(), check: check, clock: clock})
}

func (s *searcher) pop() { s.stack = s.stack[:len(s.stack)-1] }

// tick counts a node and now and then looks at the limits.
func (s *searcher) tick() {
	s.nodes++
	if s.finish && s.nodes < finishNodes {
		return
	}
	if s.lim.Nodes > 0 && s.nodes >= s.lim.Nodes {
		s.stopped = true
	}
	if s.nodes&255 == 0 {
		if s.ctx.Err() != nil || (!s.lim.Deadline.IsZero() && time.Now().After(s.lim.Deadline)) {
			s.stopped = true
		}
	}
}

// drawScore is a draw seen from the side to move: worse than nothing for
// the searching side by the contempt, so it plays on against a weaker side.
func (s *searcher) drawScore() int32 {
	if s.pos.Side() == s.rootSide {
		return -s.lim.Contempt
	}
	return s.lim.Contempt
}

// repetition scores the node if its position already stood on the path or
// in the game's recent past, with the same side to move. A cycle in which
// exactly one side gave check with every move is that side's loss (the
// perpetual-check rule); any other is a draw. The game ends only at the third
// occurrence, but a second one is scored so, as engines do: whoever could
// repeat once can repeat again.
func (s *searcher) repetition(ply int) (int32, bool) {
	st := s.stack
	i := len(st) - 1
	lo := max(i-st[i].clock, 0)
	for j := i - 4; j >= lo; j -= 2 {
		if st[j].hash != st[i].hash {
			continue
		}
		// The cycle's moves led to st[j+1..i]: the opponent made those
		// into i, i-2, …; the side to move those into i-1, i-3, ….
		them, us := true, true
		for k := i; k > j; k -= 2 {
			them = them && st[k].check
		}
		for k := i - 1; k > j; k -= 2 {
			us = us && st[k].check
		}
		switch {
		case them && !us:
			return mate - int32(ply), true
		case us && !them:
			return -mate + int32(ply), true
		}
		return s.drawScore(), true
	}
	return 0, false
}

// Move ordering scores.
const (
	orderTT      = 1 << 30
	orderCapture = 1 << 24
	orderKiller  = 1 << 22
	historyMax   = 1 << 14
)

// victimRank orders captures, most valuable victim first, cheapest attacker
// first among equal victims.
var victimRank = [8]int32{rules.King: 10, rules.Rook: 8, rules.Cannon: 6, rules.Horse: 6,
	rules.Advisor: 3, rules.Elephant: 3, rules.Pawn: 2}

func (s *searcher) orderScore(m, ttMove rules.Move, ply int) int32 {
	if m == ttMove {
		return orderTT
	}
	if v := s.pos.PieceAt(m.To()); v != rules.Empty {
		return orderCapture + victimRank[v.Kind()]*64 - victimRank[s.pos.PieceAt(m.From()).Kind()]
	}
	switch m {
	case s.killers[ply][0]:
		return orderKiller + 1
	case s.killers[ply][1]:
		return orderKiller
	}
	return s.history[m]
}

// pick moves the best-scored of moves[i:] to i (selection sort: most nodes
// cut off after a move or two, so sorting everything would be waste).
func pick(moves []rules.Move, scores []int32, i int) {
	best := i
	for j := i + 1; j < len(moves); j++ {
		if scores[j] > scores[best] {
			best = j
		}
	}
	moves[i], moves[best] = moves[best], moves[i]
	scores[i], scores[best] = scores[best], scores[i]
}

func (s *searcher) rewardQuiet(m rules.Move, ply, depth int, tried []rules.Move) {
	if s.killers[ply][0] != m {
		s.killers[ply][1] = s.killers[ply][0]
		s.killers[ply][0] = m
	}
	bonus := int32(min(depth*depth, 400))
	s.history[m] += bonus - s.history[m]*bonus/historyMax
	for _, q := range tried {
		s.history[q] -= bonus + s.history[q]*bonus/historyMax
	}
}

// irreversible reports whether m (not yet played) resets the 60-move count.
func (s *searcher) irreversible(m rules.Move) bool {
	if s.pos.PieceAt(m.To()) != rules.Empty {
		return true
	}
	pc := s.pos.PieceAt(m.From())
	return pc.Kind() == rules.Pawn && int(m.To())-int(m.From()) == rules.Forward(pc.Color())
}

// hasAttackers reports whether the side to move has a rook, horse or cannon:
// without one, passing might be its best move (zugzwang) and null-move
// pruning would lie.
func (s *searcher) hasAttackers() bool {
	us := s.pos.Side()
	for _, sq := range s.pos.Squares(us) {
		if sq == rules.NoSquare {
			continue
		}
		switch s.pos.PieceAt(sq).Kind() {
		case rules.Rook, rules.Horse, rules.Cannon:
			return true
		}
	}
	return false
}

// finishNodes bounds the first iteration's immunity to the clock: it is
// normally a few hundred nodes, but a storm of checks could make it long.
const finishNodes = 5_000

var futilityMargin = [4]int32{0, 120, 250, 400}

// negamax is the principal-variation search of a node below the root.
func (s *searcher) negamax(depth, ply int, alpha, beta int32, nullOK bool) int32 {
	s.pvLen[ply] = ply
	pvNode := beta-alpha > 1
	top := s.stack[len(s.stack)-1]
	inCheck := top.check
	if r, ok := s.repetition(ply); ok {
		return r
	}
	if top.clock >= sixtyMovePlies {
		return s.drawScore()
	}
	// Mate-distance pruning: no line from here beats a mate already found.
	alpha = max(alpha, -mate+int32(ply))
	beta = min(beta, mate-int32(ply)-1)
	if alpha >= beta {
		return alpha
	}
	if depth <= 0 || ply >= maxPly-1 {
		return s.quiesce(ply, alpha, beta, 0)
	}
	s.tick()
	if s.stopped {
		return 0
	}
	key := s.pos.Hash()
	ttMove := rules.NoMove
	if e, ok := s.tt.probe(key); ok {
		ttMove = e.move
		if !pvNode && int(e.depth) >= depth {
			sc := fromTT(int32(e.score), ply)
			if e.bound == boundExact || (e.bound == boundLower && sc >= beta) || (e.bound == boundUpper && sc <= alpha) {
				return sc
			}
		}
	}
	var static int32
	if !inCheck {
		static = evaluate(s.pos)
		if !pvNode && !s.lim.Plain && beta < mateBound && beta > -mateBound {
			// Reverse futility: far above beta at a shallow depth.
			if depth <= 3 && static-futilityMargin[depth] >= beta {
				return static
			}
			if nullOK && depth >= 3 && static >= beta && s.hasAttackers() {
				r := 2 + depth/4
				s.pos.MakeNullMove()
				s.push(false, true)
				score := -s.negamax(depth-1-r, ply+1, -beta, -beta+1, false)
				s.pop()
				s.pos.UnmakeNullMove()
				if s.stopped {
					return 0
				}
				if score >= beta {
					return min(score, mateBound)
				}
			}
		}
	}
	var ml rules.MoveList
	s.pos.GenerateMoves(&ml)
	moves := ml.Moves()
	var scoreBuf [rules.MaxMoves]int32
	scores := scoreBuf[:len(moves)]
	for i, m := range moves {
		scores[i] = s.orderScore(m, ttMove, ply)
	}
	var triedBuf [rules.MaxMoves]rules.Move
	tried := triedBuf[:0]
	best, bestMove := -infinity, rules.NoMove
	origAlpha := alpha
	legal := 0
	for i := range moves {
		pick(moves, scores, i)
		m := moves[i]
		if !s.pos.Legal(m, inCheck) {
			continue
		}
		legal++
		quiet := s.pos.PieceAt(m.To()) == rules.Empty
		// Shallow quiet moves that cannot lift a hopeless node are tried
		// only if they give check (known after the move).
		prune := !pvNode && !s.lim.Plain && !inCheck && quiet && legal > 1 && best > -mateBound && depth <= 3 &&
			(static+futilityMargin[depth] <= alpha || len(tried) >= 3+4*depth*depth)
		irr := s.irreversible(m)
		u := s.pos.MakeMove(m)
		check := s.pos.InCheck()
		if prune && !check {
			s.pos.UnmakeMove(m, u)
			continue
		}
		s.push(check, irr)
		newDepth := depth - 1
		// Checks are extended (forced lines are where tactics hide), but
		// only so far, or a chain of checks would never end.
		if check && ply < 2*s.depth {
			newDepth++
		}
		var score int32
		if legal == 1 {
			score = -s.negamax(newDepth, ply+1, -beta, -alpha, true)
		} else {
			r := 0
			if depth >= 3 && !s.lim.Plain && quiet && !inCheck && !check && scores[i] < orderKiller {
				r = lmr[min(depth, 63)][min(legal, 63)]
				if pvNode {
					r--
				}
				r = max(0, min(r, newDepth-1))
			}
			score = -s.negamax(newDepth-r, ply+1, -alpha-1, -alpha, true)
			if score > alpha && r > 0 {
				score = -s.negamax(newDepth, ply+1, -alpha-1, -alpha, true)
			}
			if score > alpha && score < beta {
				score = -s.negamax(newDepth, ply+1, -beta, -alpha, true)
			}
		}
		s.pop()
		s.pos.UnmakeMove(m, u)
		if s.stopped {
			return 0
		}
		if score > best {
			best, bestMove = score, m
			if score > alpha {
				alpha = score
				s.updatePV(ply, m)
				if score >= beta {
					if quiet {
						s.rewardQuiet(m, ply, depth, tried)
					}
					break
				}
			}
		}
		if quiet {
			tried = append(tried, m)
		}
	}
	if legal == 0 {
		return -mate + int32(ply) // checkmate or stalemate: both lose
	}
	if best == -infinity {
		// Every legal move was pruned: the node is hopeless for the mover.
		return alpha
	}
	bound := boundUpper
	switch {
	case best >= beta:
		bound = boundLower
	case best > origAlpha:
		bound = boundExact
	default:
		bestMove = rules.NoMove
	}
	s.tt.store(key, bestMove, toTT(best, ply), depth, bound)
	return best
}

func (s *searcher) updatePV(ply int, m rules.Move) {
	s.pv[ply][ply] = m
	n := s.pvLen[ply+1]
	if n < ply+1 {
		n = ply + 1
	}
	copy(s.pv[ply][ply+1:n], s.pv[ply+1][ply+1:n])
	s.pvLen[ply] = n
}

// quiesce searches captures (every move when in check) until the position
// is quiet, so that no score is taken in the middle of an exchange.
func (s *searcher) quiesce(ply int, alpha, beta int32, qply int) int32 {
	s.pvLen[ply] = ply
	s.tick()
	if s.stopped {
		return 0
	}
	inCheck := s.stack[len(s.stack)-1].check
	if ply >= maxPly-1 || qply >= 10 {
		return evaluate(s.pos)
	}
	var ml rules.MoveList
	best := -mate + int32(ply)
	var stand int32
	if inCheck {
		s.pos.GenerateMoves(&ml)
	} else {
		stand = evaluate(s.pos)
		if stand >= beta {
			return stand
		}
		alpha = max(alpha, stand)
		best = stand
		s.pos.GenerateCaptures(&ml)
	}
	moves := ml.Moves()
	var scoreBuf [rules.MaxMoves]int32
	scores := scoreBuf[:len(moves)]
	for i, m := range moves {
		scores[i] = s.orderScore(m, rules.NoMove, ply)
	}
	legal := 0
	for i := range moves {
		pick(moves, scores, i)
		m := moves[i]
		victim := s.pos.PieceAt(m.To())
		if !inCheck && stand+pst[victim.Color()][victim.Kind()][m.To()]+200 <= alpha {
			continue // delta pruning: even winning it cannot reach alpha
		}
		if !s.pos.Legal(m, inCheck) {
			continue
		}
		legal++
		irr := s.irreversible(m)
		u := s.pos.MakeMove(m)
		s.push(s.pos.InCheck(), irr)
		score := -s.quiesce(ply+1, -beta, -alpha, qply+1)
		s.pop()
		s.pos.UnmakeMove(m, u)
		if s.stopped {
			return 0
		}
		if score > best {
			best = score
			if score > alpha {
				alpha = score
				if score >= beta {
					break
				}
			}
		}
	}
	if inCheck && legal == 0 {
		return -mate + int32(ply)
	}
	return best
}

// rootMove is a legal move at the root and what the last search said of it.
type rootMove struct {
	m     rules.Move
	score int32
	fixed bool // the game's rules decide it (Limits.Ends)
}

// rootMoves lists the legal moves, captures first.
func (s *searcher) rootMoves() []rootMove {
	var ml rules.MoveList
	s.pos.GenerateMoves(&ml)
	moves := ml.Moves()
	scores := make([]int32, len(moves))
	for i, m := range moves {
		scores[i] = s.orderScore(m, rules.NoMove, 0)
	}
	check := s.pos.InCheck()
	var out []rootMove
	for i := range moves {
		pick(moves, scores, i)
		if m := moves[i]; s.pos.Legal(m, check) {
			rm := rootMove{m: m}
			if sc, ok := s.lim.Ends[m]; ok {
				rm.score, rm.fixed = sc, true
			}
			out = append(out, rm)
		}
	}
	return out
}

// searchRoot runs one iteration over the root moves, best-first, with a
// window; it returns the best score and moves the best move to the front.
// On a stop it returns what it finished, and ok=false.
func (s *searcher) searchRoot(rms []rootMove, depth int, alpha, beta int32) (int32, bool) {
	best := -infinity
	check := s.stack[len(s.stack)-1].check
	for i := range rms {
		rm := &rms[i]
		var score int32
		if rm.fixed {
			score = rm.score
		} else {
			irr := s.irreversible(rm.m)
			quiet := s.pos.PieceAt(rm.m.To()) == rules.Empty
			u := s.pos.MakeMove(rm.m)
			gives := s.pos.InCheck()
			s.push(gives, irr)
			newDepth := depth - 1
			if gives {
				newDepth++
			}
			if i == 0 {
				score = -s.negamax(newDepth, 1, -beta, -alpha, true)
			} else {
				r := 0
				if depth >= 3 && !s.lim.Plain && quiet && !check && !gives && i >= 4 {
					r = max(0, min(lmr[min(depth, 63)][min(i+1, 63)]-1, newDepth-1))
				}
				score = -s.negamax(newDepth-r, 1, -alpha-1, -alpha, true)
				if score > alpha && r > 0 {
					score = -s.negamax(newDepth, 1, -alpha-1, -alpha, true)
				}
				if score > alpha && score < beta {
					score = -s.negamax(newDepth, 1, -beta, -alpha, true)
				}
			}
			s.pop()
			s.pos.UnmakeMove(rm.m, u)
			if s.stopped {
				return best, false
			}
		}
		if i == 0 || score > alpha {
			rm.score = score
		} else {
			rm.score = -infinity // below the window: unknown
		}
		if score > best {
			best = score
			if score > alpha {
				s.pv[0][0] = rm.m
				n := max(s.pvLen[1], 1)
				copy(s.pv[0][1:n], s.pv[1][1:n])
				s.pvLen[0] = n
				// Best first, the rest in their order, for the next pass.
				m := *rm
				copy(rms[1:i+1], rms[:i])
				rms[0] = m
				alpha = score
				if score >= beta {
					return score, true
				}
			}
		}
	}
	return best, true
}

// search runs iterative deepening within the limits. The first iteration
// always completes, so there is a move even with an expired deadline.
func (s *searcher) search() Result {
	rms := s.rootMoves()
	res := Result{Complete: true}
	if len(rms) == 0 {
		return res
	}
	res.Move, res.Score = rms[0].m, rms[0].score
	maxDepth := s.lim.Depth
	if maxDepth <= 0 || maxDepth > maxPly/2 {
		maxDepth = maxPly / 2
	}
	prev := int32(0)
	for d := 1; d <= maxDepth; d++ {
		if d > 1 && s.lim.SoftNodes > 0 && s.nodes >= s.lim.SoftNodes {
			break
		}
		if d > 1 && !s.lim.SoftDeadline.IsZero() && time.Now().After(s.lim.SoftDeadline) {
			res.Complete = false
			break
		}
		s.finish, s.depth = d == 1, d
		alpha, beta := -infinity, infinity
		delta := int32(40)
		if d >= 4 && prev > -mateBound && prev < mateBound {
			alpha, beta = prev-delta, prev+delta
		}
		var score int32
		var ok bool
		for {
			score, ok = s.searchRoot(rms, d, alpha, beta)
			if !ok {
				break
			}
			if score <= alpha && alpha > -infinity {
				alpha = max(alpha-delta, -infinity)
			} else if score >= beta && beta < infinity {
				beta = min(beta+delta, infinity)
			} else {
				break
			}
			delta *= 3
			if delta > 1000 {
				alpha, beta = -infinity, infinity
			}
		}
		if !ok {
			// A move that beat the previous best in the unfinished pass was
			// fully searched and is better: play it.
			if rms[0].m != res.Move && rms[0].score > prev {
				res.Move, res.Score = rms[0].m, rms[0].score
			}
			res.Complete = false
			break
		}
		prev = score
		res.Move, res.Score, res.Depth = rms[0].m, score, d
		res.PV = append(res.PV[:0], s.pv[0][:s.pvLen[0]]...)
		if len(rms) == 1 && d >= 2 {
			break // nothing to choose
		}
		if score > mateBound && int(mate-score) <= d {
			break // a mate no deeper search can improve
		}
	}
	res.Nodes = s.nodes
	return res
}
