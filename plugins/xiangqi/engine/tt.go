package engine

import "github.com/banmen/banmen/plugins/xiangqi/rules"

// Bounds of a stored score.
const (
	boundNone  uint8 = 0
	boundUpper uint8 = 1 // the score is at most this (every move failed low)
	boundLower uint8 = 2 // at least this (a move failed high)
	boundExact uint8 = boundUpper | boundLower
)

// entry is one stored search result. The full key is kept: a table is used
// by one search at a time, so no lockless tricks are needed.
type entry struct {
	key   uint64
	move  rules.Move
	score int16
	depth int8
	bound uint8
	gen   uint16 // the search that stored it; others' entries are invisible
}

// table is a transposition table of two-entry buckets: the first keeps the
// deepest result, the second the latest, so deep work survives a flood of
// shallow nodes.
type table struct {
	b    [][2]entry
	mask uint64
	gen  uint16
}

func newTable(bits uint) *table {
	return &table{b: make([][2]entry, 1<<bits), mask: 1<<bits - 1}
}

// clear forgets everything, so that a search does not depend on the ones
// before it (same state, same move). Rather than wiping 16 MB, which takes
// long on a busy machine, it starts a new generation; only when the counter
// wraps is the memory wiped.
func (t *table) clear() {
	if t.gen++; t.gen == 0 {
		clear(t.b)
		t.gen = 1
	}
}

func (t *table) probe(key uint64) (entry, bool) {
	b := &t.b[key&t.mask]
	if b[0].key == key && b[0].gen == t.gen && b[0].bound != boundNone {
		return b[0], true
	}
	if b[1].key == key && b[1].gen == t.gen && b[1].bound != boundNone {
		return b[1], true
	}
	return entry{}, false
}

func (t *table) store(key uint64, m rules.Move, score int32, depth int, bound uint8) {
	b := &t.b[key&t.mask]
	e := entry{key: key, move: m, score: int16(score), depth: int8(max(min(depth, 127), -1)), bound: bound, gen: t.gen}
	for i := range b {
		if b[i].gen != t.gen {
			b[i] = entry{depth: -2} // stale: as good as empty
		}
	}
	switch {
	case b[0].key == key:
		if m == rules.NoMove {
			e.move = b[0].move // keep the old best move when this node found none
		}
		if e.depth >= b[0].depth || bound == boundExact {
			b[0] = e
		}
	case e.depth >= b[0].depth:
		if b[1].key != key || b[1].depth <= b[0].depth {
			b[1] = b[0]
		}
		b[0] = e
	default:
		if b[1].key == key && m == rules.NoMove {
			e.move = b[1].move
		}
		b[1] = e
	}
}

// toTT and fromTT make mate scores relative to the node, not the root, so
// that a stored mate means the same at any ply.
func toTT(score int32, ply int) int32 {
	switch {
	case score > mateBound:
		return score + int32(ply)
	case score < -mateBound:
		return score - int32(ply)
	}
	return score
}

func fromTT(score int32, ply int) int32 {
	switch {
	case score > mateBound:
		return score - int32(ply)
	case score < -mateBound:
		return score + int32(ply)
	}
	return score
}
