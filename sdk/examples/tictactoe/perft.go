package tictactoe

import (
	"context"
	"fmt"

	"github.com/banmen/banmen/sdk"
)

// Perft counts the leaves of the move tree below a position ("" is the
// start), depth plies deep; a finished game has no children.
func (Variant) Perft(ctx context.Context, position string, depth int) (uint64, error) {
	var b board
	side := 0
	if position != "" {
		var err error
		if b, side, err = parsePosition(position); err != nil {
			return 0, err
		}
	}
	return perft(ctx, &b, side, depth)
}

func perft(ctx context.Context, b *board, side, depth int) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("perft: %w", err)
	}
	if depth == 0 {
		return 1, nil
	}
	if b.winner() != sdk.NoSeat {
		return 0, nil
	}
	var n uint64
	for c := range b {
		if b[c] != 0 {
			continue
		}
		b[c] = marks[side]
		k, err := perft(ctx, b, 1-side, depth-1)
		b[c] = 0
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// Divide splits Perft by root move, keyed by move text: the table that shows
// which move a faulty generator miscounts (`tictactoe perft -divide`).
func (Variant) Divide(ctx context.Context, position string, depth int) (map[string]uint64, error) {
	var b board
	side := 0
	if position != "" {
		var err error
		if b, side, err = parsePosition(position); err != nil {
			return nil, err
		}
	}
	out := map[string]uint64{}
	if depth <= 0 || b.winner() != sdk.NoSeat {
		return out, nil
	}
	for c := range b {
		if b[c] != 0 {
			continue
		}
		b[c] = marks[side]
		n, err := perft(ctx, &b, 1-side, depth-1)
		b[c] = 0
		if err != nil {
			return nil, err
		}
		out[string(moveText(c))] = n
	}
	return out, nil
}
