package engine

import (
	"context"
	"slices"
	"time"

	"github.com/banmen/banmen/plugins/yonin/rules"
	"github.com/banmen/banmen/sdk"
)

// config is one level's budget and character.
type config struct {
	// depth is the deepest iteration, in plies (moves of any seat).
	depth int
	// nodes caps the work; an iteration cut short by it is discarded, so
	// the move depends on the position only, not on the machine's speed.
	nodes int64
	// think caps the wall time whatever the nodes (a busy machine).
	think time.Duration
	// noise is the largest score added to a root move from the position's
	// hash: Easy's mistakes, Medium's variety.
	noise int
	// quiesce is how many plies of captures follow the last full ply.
	quiesce int
	// safety is the weight of king safety in the evaluation, in percent.
	safety int
	// press is the weight of the pressure on enemy kings, in percent.
	press int
	// extend is how many of the root seat's checks on one line are
	// searched a ply deeper: mates, the game's first key, come from
	// checks.
	extend int
	// brs searches best replies (brs.go) instead of paranoid rounds.
	brs bool
	// strict makes the opponents' layer follow a forced answer to the
	// root's check unless the answering seat moves just before the root.
	strict bool
}

// levels are the computer strengths. Easy looks at its own move and the
// captures that follow it, and ignores king safety; Medium sees the next
// mover's reply and weighs king safety at half (both paranoid). Hard runs a
// best-reply search (brs.go): its own moves alternate with the one most
// harmful reply of any opponent, so it sees two or three of its own moves
// and finds mates the paranoid levels cannot; it deepens as far as its node
// budget allows, capped at 1.8 s, and looks further along checks. (A deep
// paranoid Hard, which assumes the three others play together against it,
// only defended: 45-54% against Medium, where best replies score about
// 80%.)
var levels = map[sdk.Level]config{
	sdk.Easy:   {depth: 1, nodes: 20000, think: 300 * time.Millisecond, noise: 300, quiesce: 1, safety: 0, press: 100},
	sdk.Medium: {depth: 2, nodes: 150000, think: 800 * time.Millisecond, noise: 40, quiesce: 4, safety: 50, press: 100},
	sdk.Hard:   {depth: 16, nodes: 550000, think: 1800 * time.Millisecond, noise: 0, quiesce: 6, safety: 50, press: 100, extend: 2, brs: true, strict: true},
}

const maxPly = 64

// debugf, when set by a test, traces the iterations.
var debugf func(format string, args ...any)

type ttEntry struct {
	key   uint64
	score int32
	move  rules.Move
	seat  int8 // the best move's seat, in a best-reply search
	depth int8
	flag  uint8
}

const (
	flagExact = iota + 1
	flagLower
	flagUpper
)

const ttBits = 17

// searcher is one search: it is made per Suggest, so concurrent calls share
// nothing.
type searcher struct {
	ev       evaluator
	cfg      config
	ctx      context.Context
	stop     time.Time
	nodes    int64
	aborted  bool
	tt       []ttEntry
	killers  [maxPly][2]rules.Move
	history  [rules.NumKinds + 81][81]int32
	bhistory [4][rules.NumKinds + 81][81]int32
	bbuf     [maxPly][]brsMove
	buf      [maxPly][]rules.Move
	keys     [maxPly][]int32
	quiesce  int
	rootPos  rules.Position
	rootHash uint64
}

// errAbort unwinds nothing: the search polls aborted instead, which keeps it
// free of panics.
func (s *searcher) poll() bool {
	if s.aborted {
		return true
	}
	s.nodes++
	if s.nodes >= s.cfg.nodes {
		s.aborted = true
	} else if s.nodes&255 == 0 && (s.ctx.Err() != nil || time.Now().After(s.stop)) {
		s.aborted = true
	}
	return s.aborted
}

// Choose returns the move of the seat to move in g: the best move of the
// last iteration completed before the level's budget or ctx's deadline ran
// out, or at once a plausible legal move when no time is left.
func Choose(ctx context.Context, g *rules.Game, cfg config) rules.Move {
	start := time.Now()
	p := g.Position()
	root := g.LegalMoves()
	stop := start.Add(cfg.think)
	if dl, ok := ctx.Deadline(); ok {
		// Keep a fifth of the remaining time (at least 15 ms) for the
		// reply's journey back to the host.
		left := time.Until(dl)
		reserve := max(left/5, 15*time.Millisecond)
		if d := dl.Add(-reserve); d.Before(stop) {
			stop = d
		}
	}
	s := &searcher{
		ev:       evaluator{root: p.Turn(), pairs: p.Pairs(), safety: cfg.safety, press: cfg.press},
		cfg:      cfg,
		ctx:      ctx,
		stop:     stop,
		tt:       make([]ttEntry, 1<<ttBits),
		quiesce:  cfg.quiesce,
		rootPos:  p,
		rootHash: p.Hash(),
	}
	// A mate now is the game's first ranking key and nothing found later
	// is worth delaying it for: a deeper search sees that the mate is
	// still there next round and would happily wait. So when some moves
	// mate, only they are searched.
	var mating []rules.Move
	for _, m := range root {
		q := p
		q.Play(m)
		if q.Score(p.Turn()) > p.Score(p.Turn()) {
			mating = append(mating, m)
		}
	}
	if len(mating) > 0 {
		root = mating
	}
	if len(root) == 1 {
		return root[0]
	}
	s.orderMoves(&p, root, 0, 0)
	best := root[0]
	if ctx.Err() != nil || !time.Now().Before(stop) {
		return best
	}
	// Root moves that end the game by repetition are scored by the places
	// it would give; moves that repeat at all are nudged down, so that
	// deterministic players do not shuffle for ever.
	fixed := make(map[rules.Move]int)
	bias := make([]int, len(root))
	for i, m := range root {
		if n := g.Repeats(m); n >= 4 {
			q := p
			q.Play(m)
			fixed[m] = s.placeScore(rules.PlacesAfterRepetition(&q))
		} else if n >= 2 {
			bias[i] = -30 * (n - 1)
		}
		bias[i] += s.noise(m)
	}
	scores := make([]int, len(root))
	for depth := 1; depth <= cfg.depth; depth++ {
		bestV, bestI := -inf, -1
		alpha := -inf
		for i, m := range root {
			var v int
			if fv, ok := fixed[m]; ok {
				v = fv
			} else {
				q := p
				q.Play(m)
				if cfg.brs {
					v = s.brs(&q, depth-1, 1, cfg.extend, alpha-bias[i], inf, false) + bias[i]
				} else {
					v = s.search(&q, depth-1, 1, cfg.extend, alpha-bias[i], inf) + bias[i]
				}
			}
			if s.aborted {
				break
			}
			scores[i] = v
			if v > bestV {
				bestV, bestI = v, i
				alpha = v
			}
		}
		if s.aborted || bestI < 0 {
			break
		}
		if bestV < lostScore && depth > 1 {
			// Every move loses to the others' coalition: a paranoid
			// search's fear more than a real threat, since the others
			// do not play together. The last iteration that saw a way
			// out knows better than playing any move at all.
			if debugf != nil {
				debugf("depth %d: every move is mated; keeping %s", depth, rules.MoveText(p.Turn(), best))
			}
			break
		}
		// Best first for the next iteration; the others keep their order
		// by this iteration's (bounded) scores.
		idx := make([]int, len(root))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			if a == bestI {
				return -1
			}
			if b == bestI {
				return 1
			}
			return scores[b] - scores[a]
		})
		nr, ns, nb := make([]rules.Move, len(root)), make([]int, len(root)), make([]int, len(root))
		for j, i := range idx {
			nr[j], ns[j], nb[j] = root[i], scores[i], bias[i]
		}
		root, scores, bias = nr, ns, nb
		best = root[0]
		if debugf != nil {
			debugf("depth %d best %s score %d nodes %d %v", depth, rules.MoveText(p.Turn(), best), bestV, s.nodes, time.Since(start))
		}
		if bestV >= firstPlace-1000 {
			break // a won game: no need to look further
		}
	}
	return best
}

// noise is the level's deterministic jitter of a root move: drawn from the
// position's hash and the move, so it is the same on every call.
func (s *searcher) noise(m rules.Move) int {
	if s.cfg.noise == 0 {
		return 0
	}
	h := mix(s.rootHash ^ uint64(m)*0x9E3779B97F4A7C15)
	return int(h%uint64(2*s.cfg.noise+1)) - s.cfg.noise
}

func mix(x uint64) uint64 {
	x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
	x = (x ^ x>>27) * 0x94D049BB133111EB
	return x ^ x>>31
}

// placeScore scores final places for the root seat.
func (s *searcher) placeScore(places []int) int {
	switch places[s.ev.root] {
	case 1:
		return firstPlace
	case 2:
		return secondPlace
	case 3:
		return matedScore + 15000
	default:
		return matedScore
	}
}

// search is the paranoid alpha-beta value of p for the root seat: the root
// maximises, every other seat minimises.
func (s *searcher) search(p *rules.Position, depth, ply, ext int, alpha, beta int) int {
	if s.poll() {
		return 0
	}
	if v, over := s.over(p, ply); over {
		return v
	}
	if depth <= 0 || ply >= maxPly-1 {
		return s.qsearch(p, ply, s.quiesce, alpha, beta)
	}
	maximise := p.Turn() == s.ev.root
	key := p.Hash()
	e, hit, cut, v := s.probe(key, depth, alpha, beta)
	if cut {
		return v
	}
	var ttMove rules.Move
	if hit {
		ttMove = e.move
	}
	moves := p.LegalMoves(s.buf[ply][:0])
	s.buf[ply] = moves
	if len(moves) == 0 {
		return s.ev.evaluate(p)
	}
	s.orderMoves(p, moves, ply, ttMove)
	a0, b0 := alpha, beta
	best := -inf
	if !maximise {
		best = inf
	}
	var bestMove rules.Move
	for i, m := range moves {
		q := *p
		q.Play(m)
		quiet := !m.Promotes() && (m.IsDrop() || p.At(m.To()) == 0)
		checks := anyCheck(&q)
		d, e := depth-1, ext
		// The root's checks, and the others' checks on the root, are
		// where mates come from: they are searched a ply deeper.
		if checks && e > 0 && (maximise || q.InCheck(s.ev.root)) {
			d, e = depth, e-1
		}
		var v int
		if quiet && i >= 6 && depth >= 3 && !checks {
			// Late quiet moves get a shallower look first, and a full one
			// only if they turn out to matter.
			v = s.search(&q, d-1, ply+1, e, alpha, beta)
			if maximise && v > alpha || !maximise && v < beta {
				v = s.search(&q, d, ply+1, e, alpha, beta)
			}
		} else {
			v = s.search(&q, d, ply+1, e, alpha, beta)
		}
		if s.aborted {
			return 0
		}
		if maximise {
			if v > best {
				best, bestMove = v, m
			}
			alpha = max(alpha, v)
		} else {
			if v < best {
				best, bestMove = v, m
			}
			beta = min(beta, v)
		}
		if alpha >= beta {
			if quiet {
				s.killers[ply][1] = s.killers[ply][0]
				s.killers[ply][0] = m
				s.history[m.From()][m.To()] += int32(depth * depth)
			}
			break
		}
	}
	e.store(key, depth, best, a0, b0, bestMove, 0)
	return best
}

// over scores p when nothing is left to search: the game has ended, or the
// root seat has been mated.
func (s *searcher) over(p *rules.Position, ply int) (int, bool) {
	switch {
	case p.Turn() < 0:
		return s.ev.terminal(p) - ply, true
	case !p.Live(s.ev.root):
		return s.ev.matedScore(p) + ply, true
	}
	return 0, false
}

// probe finds key's entry in the table: hit when it holds this position,
// and cut, with the value v, when its bound settles the window (alpha,
// beta) at depth.
func (s *searcher) probe(key uint64, depth, alpha, beta int) (e *ttEntry, hit, cut bool, v int) {
	e = &s.tt[key&(1<<ttBits-1)]
	if e.key != key {
		return e, false, false, 0
	}
	v = int(e.score)
	cut = int(e.depth) >= depth && (e.flag == flagExact ||
		e.flag == flagLower && v >= beta ||
		e.flag == flagUpper && v <= alpha)
	return e, true, cut, v
}

// store keeps a node's result: best, searched to depth in the window
// (alpha, beta), with its move and that move's seat.
func (e *ttEntry) store(key uint64, depth, best, alpha, beta int, m rules.Move, seat int8) {
	flag := uint8(flagExact)
	switch {
	case best <= alpha:
		flag = flagUpper
	case best >= beta:
		flag = flagLower
	}
	*e = ttEntry{key: key, score: int32(best), move: m, seat: seat, depth: int8(depth), flag: flag}
}

// anyCheck reports whether some live seat is in check.
func anyCheck(p *rules.Position) bool {
	for s := range 4 {
		if p.Live(s) && p.InCheck(s) {
			return true
		}
	}
	return false
}

// qsearch resolves the captures that hang over a leaf: the seat to move
// may stand pat or capture.
func (s *searcher) qsearch(p *rules.Position, ply, left, alpha, beta int) int {
	stand := s.ev.evaluate(p)
	if left <= 0 || ply >= maxPly-1 {
		return stand
	}
	maximise := p.Turn() == s.ev.root
	if maximise {
		if stand >= beta {
			return stand
		}
		alpha = max(alpha, stand)
	} else {
		if stand <= alpha {
			return stand
		}
		beta = min(beta, stand)
	}
	moves := p.LegalCaptures(s.buf[ply][:0])
	s.buf[ply] = moves
	s.orderMoves(p, moves, ply, 0)
	best := stand
	for _, m := range moves {
		if s.poll() {
			return 0
		}
		q := *p
		q.Play(m)
		v, over := s.over(&q, ply)
		if !over {
			v = s.qsearch(&q, ply+1, left-1, alpha, beta)
		}
		if s.aborted {
			return 0
		}
		if maximise {
			best = max(best, v)
			alpha = max(alpha, v)
		} else {
			best = min(best, v)
			beta = min(beta, v)
		}
		if alpha >= beta {
			break
		}
	}
	return best
}

// orderMoves sorts moves best first: the table move, captures of valuable
// pieces by cheap ones, promotions, killers, then by history. It sorts in
// place with a per-ply key buffer: no allocation in the search's hot path.
func (s *searcher) orderMoves(p *rules.Position, moves []rules.Move, ply int, ttMove rules.Move) {
	keys := s.keys[ply][:0]
	for _, m := range moves {
		keys = append(keys, s.orderKey(p, m, ply, m == ttMove && ttMove != 0, &s.history))
	}
	s.keys[ply] = keys
	// Insertion sort: stable, and the lists are mostly short or nearly
	// sorted by kind already.
	for i := 1; i < len(moves); i++ {
		m, k := moves[i], keys[i]
		j := i
		for ; j > 0 && keys[j-1] < k; j-- {
			moves[j], keys[j] = moves[j-1], keys[j-1]
		}
		moves[j], keys[j] = m, k
	}
}

// orderKey is a move's sort key, higher first: the table move, captures of
// valuable pieces by cheap ones, promotions, killers, then the history of
// the mover (history is its table, indexed from and to).
func (s *searcher) orderKey(p *rules.Position, m rules.Move, ply int, isTT bool, history *[rules.NumKinds + 81][81]int32) int32 {
	var k int32
	switch {
	case isTT:
		k = 1 << 30
	case !m.IsDrop() && p.At(m.To()) != 0:
		v := p.At(m.To())
		a := p.At(m.From())
		k = 1<<28 + int32(boardValue[v.Kind()][b2i(v.Promoted())]*16-boardValue[a.Kind()][b2i(a.Promoted())])
	case m == s.killers[ply][0]:
		k = 1<<27 + 1
	case m == s.killers[ply][1]:
		k = 1 << 27
	default:
		k = history[m.From()][m.To()]
		if m.IsDrop() {
			k -= 1 << 20
		}
	}
	if m.Promotes() {
		k += 1 << 26
	}
	return k
}
