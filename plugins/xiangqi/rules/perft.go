package rules

import (
	"context"
	"sort"

	"github.com/banmen/banmen/sdk"
)

// perftCheckEvery is how many interior nodes pass between two looks at the
// context, so that cancelling is prompt without costing speed.
const perftCheckEvery = 1 << 12

// perft counts the leaves of the legal-move tree of the given depth, counting
// the legal moves at the last ply without playing them (bulk counting). It
// stops early, returning ctx's error, when ctx is done.
func (p *Position) perft(ctx context.Context, depth int) (uint64, error) {
	if depth <= 0 {
		return 1, nil
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	w := perftWalker{ctx: ctx}
	n := w.walk(p, depth)
	return n, w.err
}

type perftWalker struct {
	ctx   context.Context
	err   error
	nodes int
}

func (w *perftWalker) walk(p *Position, depth int) uint64 {
	var l MoveList
	p.generate(&l)
	check := p.InCheck()
	var n uint64
	if depth == 1 {
		for _, m := range l.m[:l.n] {
			if p.legal(m, check) {
				n++
			}
		}
		return n
	}
	if w.nodes++; w.nodes%perftCheckEvery == 0 && w.ctx.Err() != nil {
		w.err = w.ctx.Err()
	}
	for _, m := range l.m[:l.n] {
		if w.err != nil {
			return n
		}
		if !p.legal(m, check) {
			continue
		}
		u := p.make(m)
		n += w.walk(p, depth-1)
		p.unmake(m, u)
	}
	return n
}

// DivideEntry is the perft count under one root move.
type DivideEntry struct {
	Move  string // UCCI
	Nodes uint64
}

// Divide returns the perft count under every legal root move, sorted by move
// text, the tool for finding where a generator goes wrong (compare with
// ../shared/tools/fsf-divide).
func (p *Position) Divide(ctx context.Context, depth int) ([]DivideEntry, error) {
	var out []DivideEntry
	q := *p
	for _, m := range q.LegalMoves() {
		u := q.make(m)
		n, err := q.perft(ctx, depth-1)
		q.unmake(m, u)
		if err != nil {
			return nil, err
		}
		out = append(out, DivideEntry{Move: UCCI(m), Nodes: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Move < out[j].Move })
	return out, nil
}

// Perft implements sdk.Perfter: position is a FEN ("" for the start) and the
// count is of board moves only, with no repetition or 60-move adjudication.
func (Variant) Perft(ctx context.Context, position string, depth int) (uint64, error) {
	if depth < 0 {
		return 0, sdk.Errorf(sdk.CodeBadOption, "perft depth %d is negative", depth)
	}
	p := StartPosition()
	if position != "" {
		var err error
		if p, err = ParseFEN(position); err != nil {
			return 0, err
		}
	}
	return p.perft(ctx, depth)
}
