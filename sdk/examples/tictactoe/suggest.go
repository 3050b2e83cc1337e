package tictactoe

import (
	"context"
	"hash/fnv"
	"math/rand/v2"

	"github.com/banmen/banmen/sdk"
)

// Suggest is the computer player, for seat (who must be to move). Easy plays
// at random, Medium wins or blocks when it can, Hard searches the whole tree.
// The randomness is seeded by the state, so the same game always gets the
// same suggestion (a retried call gives the same answer). Hard stops at ctx's deadline and then falls back to
// Medium's move, so it always answers in time.
func (Variant) Suggest(ctx context.Context, s sdk.State, seat sdk.Seat, level sdk.Level) (sdk.Move, error) {
	g, err := decode(s)
	if err != nil {
		return "", err
	}
	if g.over() {
		return "", sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	b, side := g.board(), len(g.moves)%2
	if seat != sdk.Seat(side) {
		// The host names the seat it plays for: answering for the other
		// one would play the wrong side's move.
		return "", sdk.Errorf(sdk.CodeNotYourTurn, "seat %d is not to move", seat)
	}
	h := fnv.New64a()
	h.Write(s)
	rnd := rand.New(rand.NewPCG(h.Sum64(), 0))

	var c int
	switch level {
	case sdk.Easy:
		c = randomCell(rnd, &b)
	case sdk.Medium:
		c = mediumCell(rnd, &b, side)
	case sdk.Hard:
		if c, err = bestCell(ctx, &b, side); err != nil {
			c = mediumCell(rnd, &b, side) // out of time: still answer
		}
	default:
		return "", sdk.Errorf(sdk.CodeUnsupported, "unknown level %q", sdk.Clip(string(level)))
	}
	return moveText(c), nil
}

func randomCell(rnd *rand.Rand, b *board) int {
	var empty []int
	for c := range b {
		if b[c] == 0 {
			empty = append(empty, c)
		}
	}
	return empty[rnd.IntN(len(empty))]
}

// mediumCell completes a line of its own, else blocks one of the opponent's,
// else plays at random.
func mediumCell(rnd *rand.Rand, b *board, side int) int {
	for _, who := range []int{side, 1 - side} {
		for c := range b {
			if b[c] != 0 {
				continue
			}
			b[c] = marks[who]
			won := b.winner() != sdk.NoSeat
			b[c] = 0
			if won {
				return c
			}
		}
	}
	return randomCell(rnd, b)
}

// preferred is the order Hard tries cells in: centre, corners, edges. Among
// equally good moves the first wins, which makes its play look natural.
var preferred = [9]int{4, 0, 2, 6, 8, 1, 3, 5, 7}

// bestCell returns a move with the best minimax score for side.
func bestCell(ctx context.Context, b *board, side int) (int, error) {
	best, bestScore := -1, -2
	for _, c := range preferred {
		if b[c] != 0 {
			continue
		}
		b[c] = marks[side]
		score, err := negamax(ctx, b, 1-side, -2, -bestScore)
		b[c] = 0
		if err != nil {
			return 0, err
		}
		if -score > bestScore {
			best, bestScore = c, -score
		}
	}
	return best, nil
}

// negamax scores the position for side to move, 1 a win, 0 a draw, -1 a
// loss, searching only for scores between alpha and beta (alpha-beta
// pruning: a reply that already refutes the move ends the search of it).
func negamax(ctx context.Context, b *board, side, alpha, beta int) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if b.winner() != sdk.NoSeat {
		return -1, nil // the previous mover has just won
	}
	best := -2
	for c := range b {
		if b[c] != 0 {
			continue
		}
		b[c] = marks[side]
		score, err := negamax(ctx, b, 1-side, -beta, -alpha)
		b[c] = 0
		if err != nil {
			return 0, err
		}
		best = max(best, -score)
		alpha = max(alpha, best)
		if alpha >= beta {
			break
		}
	}
	if best == -2 {
		return 0, nil // a full board: a draw
	}
	return best, nil
}
