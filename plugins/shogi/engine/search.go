package engine

import (
	"context"
	"time"

	"github.com/banmen/banmen/plugins/shogi/rules"
)

// Scores are centipawns for the side to move. A mate found at ply n scores
// mate-n, so a nearer mate scores higher; scores beyond mateBound are mates.
const (
	mate      = 30000
	mateBound = mate - 1000
	inf       = mate + 1
	maxPly    = 100
	// maxQDepth bounds the quiescence search below the horizon.
	maxQDepth = 10
	// contempt is what the computer gives up to avoid a draw.
	contempt = 40
)

// Limits bound one search. A zero field is no bound; the search also stops
// when the context ends.
type Limits struct {
	Depth    int
	Nodes    int64
	Deadline time.Time
	// SoftDeadline is when no new iteration is begun (an iteration begun
	// late would rarely finish).
	SoftDeadline time.Time
	// Margin > 0 asks for the score of every root move within Margin of
	// the best (exact, not just "worse"), so that a weak level can choose
	// among them. It costs a full window on every root move.
	Margin int
	// Full searches even a position with one legal move, for its score
	// (analysis); a player needs no search to play the only move.
	Full bool
}

// Result is what a search found.
type Result struct {
	Move  rules.Move
	Score int
	Depth int // the last completed iteration
	Nodes int64
	// Near are the root moves scoring within Limits.Margin of the best (the
	// best first), when a margin was asked for.
	Near []rules.Move
}

// ttEntry is one transposition-table slot.
type ttEntry struct {
	key   uint64
	move  rules.Move
	score int16
	depth int8
	flag  uint8
}

const (
	flagExact = 1
	flagLower = 2 // score >= beta: a lower bound
	flagUpper = 3 // score <= alpha: an upper bound
)

// Searcher holds the tables of one search at a time. It is not safe for
// concurrent use; Suggest takes one from a pool.
type Searcher struct {
	tt     []ttEntry
	ttMask uint64

	killers [maxPly + 1][2]rules.Move
	// history scores quiet moves by mover (kind, or 16+kind for a drop),
	// colour and target cell.
	history [2][32][rules.NumCells]int32

	// keys and checks hold the game's positions and then the search path:
	// keys[i] the hash, checks[i] whether its side to move was in check.
	keys   []uint64
	checks []bool

	moves  [maxPly + maxQDepth + 2][rules.MaxMoves]rules.Move
	scores [maxPly + maxQDepth + 2][rules.MaxMoves]int32

	ctx       context.Context
	lim       Limits
	rootDepth int // the depth of the current iteration
	nodes     int64
	stopped   bool
}

// NewSearcher returns a searcher with a transposition table of 2^bits
// entries (16 bytes each).
func NewSearcher(bits int) *Searcher {
	n := 1 << bits
	return &Searcher{tt: make([]ttEntry, n), ttMask: uint64(n - 1)}
}

// reset forgets everything learnt, so that the same question always gets
// the same answer.
func (s *Searcher) reset() {
	clear(s.tt)
	s.killers = [maxPly + 1][2]rules.Move{}
	s.history = [2][32][rules.NumCells]int32{}
	s.nodes = 0
	s.stopped = false
}

// Search looks for the best move of line's position within lim. It always
// returns a legal move when there is one (Move 0 when there is none), even
// when the context has already ended.
func (s *Searcher) Search(ctx context.Context, line *rules.Line, lim Limits) Result {
	s.reset()
	s.ctx, s.lim = ctx, lim
	p := line.Pos
	s.keys = append(s.keys[:0], line.Keys...)
	s.checks = append(s.checks[:0], line.Checks...)
	if len(s.keys) == 0 {
		s.keys = append(s.keys, p.Hash())
		s.checks = append(s.checks, p.InCheck())
	}

	root, rootScores := rootMoves(&p)
	if len(root) == 0 {
		return Result{}
	}
	// A move is ready before any search: the best by a one-ply look.
	res := Result{Move: root[0], Score: rootScores[0]}
	if len(root) == 1 && lim.Margin == 0 && !lim.Full {
		return res
	}
	maxDepth := lim.Depth
	if maxDepth <= 0 || maxDepth > maxPly-10 {
		maxDepth = maxPly - 10
	}
	for depth := 1; depth <= maxDepth; depth++ {
		if depth > 1 && !lim.SoftDeadline.IsZero() && time.Now().After(lim.SoftDeadline) {
			break
		}
		s.rootDepth = depth
		best, bestScore := rules.Move(0), -inf
		alpha := -inf
		for i, m := range root {
			u := p.DoMove(m)
			gives := p.InCheck()
			var score int
			lo := alpha
			if lim.Margin > 0 {
				// Every move near the best needs its true score.
				lo = max(-inf, bestScore-lim.Margin-1)
			}
			if i == 0 || lim.Margin > 0 {
				score = -s.search(&p, depth-1, -inf, -lo, 1, gives, true)
			} else {
				score = -s.search(&p, depth-1, -alpha-1, -alpha, 1, gives, true)
				if score > alpha && !s.stopped {
					score = -s.search(&p, depth-1, -inf, -alpha, 1, gives, true)
				}
			}
			p.UndoMove(m, u)
			if s.stopped {
				break
			}
			rootScores[i] = score
			if score > bestScore {
				best, bestScore = m, score
			}
			alpha = max(alpha, score)
		}
		if s.stopped {
			// The moves searched before the clock ran out were searched
			// fully, the previous best first: the best of them stands.
			if best != 0 {
				res.Move, res.Score = best, bestScore
			}
			break
		}
		res.Move, res.Score, res.Depth = best, bestScore, depth
		sortRoot(root, rootScores)
		if lim.Margin > 0 {
			res.Near = res.Near[:0]
			for i, m := range root {
				if rootScores[i] >= bestScore-lim.Margin {
					res.Near = append(res.Near, m)
				}
			}
		}
		if bestScore > mateBound && mate-bestScore <= depth {
			// A mate within the depth searched: deeper searches only cost
			// time.
			break
		}
	}
	res.Nodes = s.nodes
	return res
}

// rootMoves returns the legal moves ordered by a one-ply look, with their
// scores.
func rootMoves(p *rules.Position) ([]rules.Move, []int) {
	root := p.GenerateMoves(make([]rules.Move, 0, 256))
	scores := make([]int, len(root))
	for i, m := range root {
		u := p.DoMove(m)
		scores[i] = -evaluate(p)
		p.UndoMove(m, u)
	}
	sortRoot(root, scores)
	return root, scores
}

// QuickMove is the best move by a one-ply look, for when there is no time
// to search; 0 when there is no legal move.
func QuickMove(line *rules.Line) rules.Move {
	p := line.Pos
	root, _ := rootMoves(&p)
	if len(root) == 0 {
		return 0
	}
	return root[0]
}

// sortRoot orders the root moves by score, best first, keeping the order of
// equal scores (insertion sort: the list is short and nearly sorted).
func sortRoot(moves []rules.Move, scores []int) {
	for i := 1; i < len(moves); i++ {
		m, sc := moves[i], scores[i]
		j := i
		for j > 0 && scores[j-1] < sc {
			moves[j], scores[j] = moves[j-1], scores[j-1]
			j--
		}
		moves[j], scores[j] = m, sc
	}
}

// checkStop looks at the clock and the node budget every 256 nodes (a
// fraction of a millisecond): time.Now is too dear for every node, and a
// loaded machine stretches a longer stride past the deadline.
func (s *Searcher) checkStop() bool {
	if s.stopped {
		return true
	}
	s.nodes++
	if s.lim.Nodes > 0 && s.nodes >= s.lim.Nodes {
		s.stopped = true
	} else if s.nodes&255 == 0 {
		if (!s.lim.Deadline.IsZero() && time.Now().After(s.lim.Deadline)) || s.ctx.Err() != nil {
			s.stopped = true
		}
	}
	return s.stopped
}

// repetition looks for the current position (the last of s.keys) earlier in
// the game or the search. It returns found and the score for the side to
// move: a draw, or a win or loss when one side gave check with every move of
// the cycle (the perpetual checker loses).
func (s *Searcher) repetition(ply int) (bool, int) {
	n := len(s.keys) - 1
	key := s.keys[n]
	for i := n - 4; i >= 0; i -= 2 {
		if s.keys[i] != key {
			continue
		}
		// Positions n, n-2, ... i+2 were reached by the side that just
		// moved; n-1, n-3, ... i+1 by the side to move.
		moverChecks, ourChecks := true, true
		for j := n; j > i; j -= 2 {
			moverChecks = moverChecks && s.checks[j]
		}
		for j := n - 1; j > i; j -= 2 {
			ourChecks = ourChecks && s.checks[j]
		}
		switch {
		case moverChecks && !ourChecks:
			return true, mate - ply
		case ourChecks && !moverChecks:
			return true, -mate + ply
		}
		return true, 0
	}
	return false, 0
}

// inEnemyCamp tells whether colour c's king stands in the enemy camp, the
// first condition of a declaration (cheap; CanDeclare does the rest).
func inEnemyCamp(p *rules.Position, c int) bool {
	k := p.KingCell(c)
	if k == 0 {
		return false
	}
	r := rules.Row(k)
	return c == rules.Sente && r <= 2 || c == rules.Gote && r >= 6
}

// search is the principal-variation search at a node that the parent has
// just moved into; inCheck tells whether its side to move is in check.
func (s *Searcher) search(p *rules.Position, depth, alpha, beta, ply int, inCheck, nullOK bool) int {
	s.keys = append(s.keys, p.Hash())
	s.checks = append(s.checks, inCheck)
	v := s.node(p, depth, alpha, beta, ply, inCheck, nullOK)
	s.keys = s.keys[:len(s.keys)-1]
	s.checks = s.checks[:len(s.checks)-1]
	return v
}

func (s *Searcher) node(p *rules.Position, depth, alpha, beta, ply int, inCheck, nullOK bool) int {
	if rep, score := s.repetition(ply); rep {
		if score == 0 {
			// A draw is worth a little less than nothing to the
			// computer (at even plies it is to move): it plays on rather
			// than repeat, against people and weaker levels alike.
			score = contempt
			if ply%2 == 0 {
				score = -contempt
			}
		}
		return score
	}
	if inCheck && ply < 2*s.rootDepth+4 && ply < maxPly-10 {
		// Check extension: a check is never the horizon. Bounded by the
		// iteration's depth, as drops can check for a long time.
		depth++
	}
	if depth <= 0 || ply >= maxPly {
		return s.quiesce(p, alpha, beta, ply, 0, inCheck)
	}
	if s.checkStop() {
		return 0
	}
	// Mate-distance pruning: no score here can beat a shorter mate.
	alpha = max(alpha, -mate+ply)
	beta = min(beta, mate-ply-1)
	if alpha >= beta {
		return alpha
	}
	if inEnemyCamp(p, p.Side()) && p.CanDeclare() {
		return mate - ply
	}
	pvNode := beta-alpha > 1
	key := p.Hash()
	e := &s.tt[key&s.ttMask]
	var ttMove rules.Move
	if e.key == key {
		ttMove = e.move
		if int(e.depth) >= depth && !pvNode {
			sc := scoreFromTT(int(e.score), ply)
			switch {
			case e.flag == flagExact,
				e.flag == flagLower && sc >= beta,
				e.flag == flagUpper && sc <= alpha:
				return sc
			}
		}
	}

	static := 0
	if !inCheck {
		static = evaluate(p)
		// Null move: if passing still fails high, a real move will too
		// (shogi has almost no zugzwang).
		if nullOK && !pvNode && depth >= 3 && static >= beta && beta < mateBound {
			r := 2 + depth/4
			p.DoNull()
			score := -s.search(p, depth-1-r, -beta, -beta+1, ply+1, false, false)
			p.UndoNull()
			if s.stopped {
				return 0
			}
			if score >= beta {
				return beta
			}
		}
	}

	moves := p.GenerateMoves(s.moves[ply][:0])
	if len(moves) == 0 {
		return -mate + ply // no legal move loses, in check or not
	}
	scores := s.scores[ply][:len(moves)]
	s.scoreMoves(p, moves, scores, ttMove, ply)

	best, bestMove := -inf, rules.Move(0)
	origAlpha := alpha
	side := p.Side()
	quietsTried := 0
	for i := range moves {
		pickNext(moves, scores, i)
		m := moves[i]
		capture := !m.IsDrop() && p.At(m.To()) != 0
		quiet := !capture && !m.Promotes()
		u := p.DoMove(m)
		gives := p.InCheck()
		// Futility and late-move pruning: near the horizon, a quiet move
		// that does not check will not lift a hopeless score.
		if quiet && !inCheck && !gives && !pvNode && best > -mateBound && m != ttMove {
			if depth == 1 && static+150 <= alpha || depth <= 3 && quietsTried >= 6+6*depth*depth {
				p.UndoMove(m, u)
				continue
			}
		}
		if quiet {
			quietsTried++
		}
		var score int
		if i == 0 {
			score = -s.search(p, depth-1, -beta, -alpha, ply+1, gives, true)
		} else {
			// Late quiet moves are searched shallower first.
			r := 0
			if quiet && depth >= 3 && i >= 3 && !inCheck && !gives && scores[i] < killerScore-2 {
				r = 1
				if i >= 8 && depth >= 5 {
					r = 2
				}
				if pvNode {
					r--
				}
			}
			score = -s.search(p, depth-1-r, -alpha-1, -alpha, ply+1, gives, true)
			if score > alpha && r > 0 {
				score = -s.search(p, depth-1, -alpha-1, -alpha, ply+1, gives, true)
			}
			if score > alpha && score < beta {
				score = -s.search(p, depth-1, -beta, -alpha, ply+1, gives, true)
			}
		}
		p.UndoMove(m, u)
		if s.stopped {
			return 0
		}
		if score > best {
			best, bestMove = score, m
			if score > alpha {
				alpha = score
				if alpha >= beta {
					if quiet {
						s.rewardQuiet(side, m, depth, ply, moves[:i], p)
					}
					break
				}
			}
		}
	}
	if best == -inf {
		// Everything was pruned: the static score stands.
		return alpha
	}
	flag := uint8(flagExact)
	switch {
	case best >= beta:
		flag = flagLower
	case best <= origAlpha:
		flag = flagUpper
	}
	if e.key != key || depth >= int(e.depth) || flag == flagExact {
		*e = ttEntry{key: key, move: bestMove, score: int16(scoreToTT(best, ply)), depth: int8(depth), flag: flag}
	}
	return best
}

// scoreToTT stores a mate as its distance from this node, not the root.
func scoreToTT(v, ply int) int {
	switch {
	case v > mateBound:
		return v + ply
	case v < -mateBound:
		return v - ply
	}
	return v
}

func scoreFromTT(v, ply int) int {
	switch {
	case v > mateBound:
		return v - ply
	case v < -mateBound:
		return v + ply
	}
	return v
}

// quiesce settles captures (and checks evasions) below the horizon, so that
// the evaluation never sees a piece hanging in the middle of an exchange.
func (s *Searcher) quiesce(p *rules.Position, alpha, beta, ply, qd int, inCheck bool) int {
	if s.checkStop() {
		return 0
	}
	moves, inCheck := p.GenerateCaptures(s.moves[ply][:0])
	if inCheck {
		if len(moves) == 0 {
			return -mate + ply
		}
		if qd >= maxQDepth || ply >= maxPly+maxQDepth {
			return evaluate(p)
		}
	}
	best := -inf
	if !inCheck {
		stand := evaluate(p)
		if stand >= beta || qd >= maxQDepth || ply >= maxPly+maxQDepth {
			return stand
		}
		best = stand
		alpha = max(alpha, stand)
		// Keep the captures and the promotions of the big pieces and pawns
		// (cheap to look at, and often what an attack turns on).
		n := 0
		for _, m := range moves {
			var gain int
			if !m.IsDrop() {
				if t := p.At(m.To()); t != 0 {
					gain = boardValue[t.Kind()] + handValue[baseOf(t.Kind())]
				}
				if m.Promotes() {
					k := p.At(m.From()).Kind()
					if k == rules.Pawn || k == rules.Bishop || k == rules.Rook {
						gain += boardValue[k+rules.Promoted] - boardValue[k]
					}
				}
			}
			// Delta pruning: even winning this cleanly would not reach alpha.
			if gain == 0 || stand+gain+200 <= alpha {
				continue
			}
			moves[n] = m
			n++
		}
		moves = moves[:n]
	}
	scores := s.scores[ply][:len(moves)]
	for i, m := range moves {
		scores[i] = int32(captureOrder(p, m))
	}
	for i := range moves {
		pickNext(moves, scores, i)
		m := moves[i]
		u := p.DoMove(m)
		gives := p.InCheck()
		score := -s.quiesce(p, -beta, -alpha, ply+1, qd+1, gives)
		p.UndoMove(m, u)
		if s.stopped {
			return 0
		}
		if score > best {
			best = score
			if score > alpha {
				alpha = score
				if alpha >= beta {
					break
				}
			}
		}
	}
	if best == -inf {
		// In check with every evasion a drop: not searched here.
		return evaluate(p)
	}
	return best
}

func baseOf(k int) int {
	if k > rules.King {
		return k - rules.Promoted
	}
	return k
}
