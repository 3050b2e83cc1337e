package rules

import (
	"context"

	"github.com/banmen/banmen/sdk"
)

// perft counts the leaves of the legal-move tree below p, depth moves deep.
// Every move is followed by its full resolution (check priority, mates,
// transfers); a game that ends has no children. Positions carry no history,
// so repetition plays no part.
func perft(ctx context.Context, p *Position, depth int, bufs [][]move) (uint64, error) {
	w := perftWork{bufs: bufs, pos: make([]Position, depth+1)}
	return w.count(ctx, p, depth)
}

// perftWork holds a move buffer and a child position per depth, so that the
// walk allocates nothing.
type perftWork struct {
	bufs [][]move
	pos  []Position
}

func (w *perftWork) count(ctx context.Context, p *Position, depth int) (uint64, error) {
	if depth == 0 {
		return 1, nil
	}
	if depth >= 3 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
	if depth == 1 {
		return uint64(p.countLegal()), nil
	}
	moves := p.legalMoves(w.bufs[depth][:0])
	w.bufs[depth] = moves[:0]
	var n uint64
	q := &w.pos[depth]
	for _, m := range moves {
		*q = *p
		q.play(m)
		if q.turn < 0 {
			continue
		}
		c, err := w.count(ctx, q, depth-1)
		if err != nil {
			return n, err
		}
		n += c
	}
	return n, nil
}

// divide is perft split by the first move, keyed by move text.
func divide(p *Position, depth int) map[string]uint64 {
	out := map[string]uint64{}
	for _, m := range p.legalMoves(nil) {
		q := *p
		q.play(m)
		var n uint64
		if depth <= 1 {
			n = 1
		} else if q.turn >= 0 {
			n, _ = perft(context.Background(), &q, depth-1, newBufs(depth))
		}
		out[moveText(int(p.turn), m)] = n
	}
	return out
}

func newBufs(depth int) [][]move {
	b := make([][]move, depth+1)
	for i := range b {
		b[i] = make([]move, 0, 256)
	}
	return b
}

// Divide implements sdk.Divider: perft split by root move text.
func (v Variant) Divide(ctx context.Context, position string, depth int) (map[string]uint64, error) {
	p, err := perftPosition(position, depth)
	if err != nil {
		return nil, err
	}
	if depth == 0 {
		return map[string]uint64{}, nil
	}
	return divide(&p, depth), ctx.Err()
}

// Perft implements sdk.Perfter: position is a position text, "" the start.
func (Variant) Perft(ctx context.Context, position string, depth int) (uint64, error) {
	p, err := perftPosition(position, depth)
	if err != nil {
		return 0, err
	}
	return perft(ctx, &p, depth, newBufs(depth))
}

func perftPosition(position string, depth int) (Position, error) {
	p := startPosition(Rules{}, 0)
	if position != "" {
		var err error
		if p, err = ParsePosition(position); err != nil {
			return p, err
		}
		if p.turn < 0 {
			return p, badPosition("the game in this position is over")
		}
	}
	if depth < 0 || depth > 64 {
		return p, sdk.Errorf(sdk.CodeUnsupported, "perft depth %d is out of range", depth)
	}
	return p, nil
}
