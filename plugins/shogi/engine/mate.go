package engine

import (
	"context"
	"time"

	"github.com/banmen/banmen/plugins/shogi/rules"
)

// The mate search of the analysis: the side to move checks with every move
// (as in tsume), the other side answers with every legal move, deepened two
// plies at a time, so the first mate it proves is the shortest one made of
// checks. The main search sees mates too, but it spends its depth on quiet
// moves and loses long mates through a defender's many interpositions (a
// drop that only delays the mate), which this search takes in its stride:
// it looks at a handful of checks where the main search looks at a hundred
// moves.

// mateEntry is one slot of the mate search's table: the position's hash, the
// depth to which it has no mate, and the best move found there.
type mateEntry struct {
	key    uint64
	noMate int8 // no mate within this many plies (-1: unknown)
	move   rules.Move
}

// mateBits sizes the mate search's table (16 bytes a slot: 2 MB).
const mateBits = 17

type mateSearcher struct {
	tt      []mateEntry
	ctx     context.Context
	stop    time.Time
	nodes   int64
	limit   int64
	stopped bool
	moves   [maxPly + 2][rules.MaxMoves]rules.Move
}

func newMateSearcher() *mateSearcher {
	return &mateSearcher{tt: make([]mateEntry, 1<<mateBits)}
}

func (s *mateSearcher) tick() bool {
	s.nodes++
	if s.limit > 0 && s.nodes >= s.limit {
		s.stopped = true
	} else if s.nodes&255 == 0 && (!s.stop.IsZero() && time.Now().After(s.stop) || s.ctx.Err() != nil) {
		s.stopped = true
	}
	return s.stopped
}

// findMate looks for a mate by the side to move of at most maxDepth plies
// within the node and time budgets. It returns the mate's length in plies
// (0 when none was proven) and its line.
func findMate(ctx context.Context, s *mateSearcher, p rules.Position, maxDepth int, nodes int64, stop time.Time) (int, []rules.Move) {
	clear(s.tt)
	s.ctx, s.stop, s.nodes, s.limit, s.stopped = ctx, stop, 0, nodes, false
	for d := 1; d <= maxDepth && d < maxPly; d += 2 {
		if v := s.attack(&p, d, 0); s.stopped {
			return 0, nil
		} else if v > 0 {
			return d, s.line(p, d)
		}
	}
	return 0, nil
}

// attack tells whether the side to move mates within depth plies (depth
// odd): 1 when one of its checks mates, 0 when none does or the search was
// stopped.
func (s *mateSearcher) attack(p *rules.Position, depth, ply int) int {
	if s.tick() {
		return 0
	}
	e := &s.tt[p.Hash()&(1<<mateBits-1)]
	var hint rules.Move
	if e.key == p.Hash() {
		if int(e.noMate) >= depth {
			return 0
		}
		hint = e.move
	}
	moves := p.GenerateMoves(s.moves[ply][:0])
	// The hint first; checks are found by playing each move.
	for i, m := range moves {
		if m == hint && i > 0 {
			moves[0], moves[i] = moves[i], moves[0]
			break
		}
	}
	for _, m := range moves {
		u := p.DoMove(m)
		if !p.InCheck() {
			p.UndoMove(m, u)
			continue
		}
		mated := s.defend(p, depth-1, ply+1)
		p.UndoMove(m, u)
		if s.stopped {
			return 0
		}
		if mated {
			*e = mateEntry{key: p.Hash(), noMate: -1, move: m}
			return 1
		}
	}
	if e.key != p.Hash() || int(e.noMate) < depth {
		*e = mateEntry{key: p.Hash(), noMate: int8(depth), move: hint}
	}
	return 0
}

// defend tells whether the side to move, in check, is mated within depth
// plies whatever it answers.
func (s *mateSearcher) defend(p *rules.Position, depth, ply int) bool {
	if s.tick() {
		return false
	}
	moves := p.GenerateMoves(s.moves[ply][:0])
	if len(moves) == 0 {
		return true // no legal move loses: mated (or its last pawn drop was not a mate)
	}
	if depth <= 0 {
		return false
	}
	// King moves and captures before interpositions by drops: they escape
	// most often, and one escape is enough; the answer that held out
	// longest before goes first of all.
	n := 0
	for i, m := range moves {
		if !m.IsDrop() {
			moves[n], moves[i] = moves[i], moves[n]
			n++
		}
	}
	e := &s.tt[p.Hash()&(1<<mateBits-1)]
	if e.key == p.Hash() && e.move != 0 {
		for i, m := range moves {
			if m == e.move && i > 0 {
				moves[0], moves[i] = moves[i], moves[0]
				break
			}
		}
	}
	var longest rules.Move
	for _, m := range moves {
		u := p.DoMove(m)
		v := s.attack(p, depth-1, ply+1)
		p.UndoMove(m, u)
		if s.stopped || v == 0 {
			return false
		}
		longest = m
	}
	e = &s.tt[p.Hash()&(1<<mateBits-1)]
	if e.key != p.Hash() {
		*e = mateEntry{key: p.Hash(), noMate: -1, move: longest}
	}
	return true
}

// line reads a mate of depth plies back: at each attacking turn the
// shortest check that still mates (searched again, shallower and
// shallower), at each defending turn the answer that holds out longest.
func (s *mateSearcher) line(p rules.Position, depth int) []rules.Move {
	var out []rules.Move
	// Bounded by the mate already proven, not by the budget (a stop now
	// would cut the line short).
	s.ctx, s.stop, s.limit, s.stopped = context.Background(), time.Time{}, 0, false
	for d := depth; d > 0; d-- {
		var buf []rules.Move
		moves := p.GenerateMoves(buf)
		var pick rules.Move
		if len(out)%2 == 0 {
			// The attacker: a check that mates within d plies.
			for _, m := range moves {
				u := p.DoMove(m)
				ok := p.InCheck() && s.defend(&p, d-1, 1)
				p.UndoMove(m, u)
				if ok {
					pick = m
					break
				}
			}
		} else {
			// The defender: the answer after which the mate is longest.
			best := -1
			for _, m := range moves {
				u := p.DoMove(m)
				k := 0
				for k = 1; k <= d-1; k += 2 {
					if s.attack(&p, k, 1) > 0 {
						break
					}
				}
				p.UndoMove(m, u)
				if k > best {
					best, pick = k, m
				}
			}
		}
		if pick == 0 {
			break
		}
		out = append(out, pick)
		p.DoMove(pick)
	}
	return out
}
