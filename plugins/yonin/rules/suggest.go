package rules

import (
	"context"
	"time"

	"github.com/banmen/banmen/sdk"
)

// This computer player is only rules.Variant's own, for tests and tools that
// use the bare rules: the plugin serves package engine's Variant, whose
// Suggest replaces it. Every candidate move is followed by a short greedy
// rollout in which each following player takes their own best one-move
// gain, and the move that leaves the mover best off wins. It is
// deterministic for a given position and level. The rollouts are short
// (one reply at most) because one of three replies at Hard made it overrun
// a 300 ms deadline: the clock is read only between candidates.

// levelDepth is the rollout length per level (0: the move's own gain only).
var levelDepth = map[sdk.Level]int{sdk.Easy: 0, sdk.Medium: 0, sdk.Hard: 1}

// Piece values in tenths of a pawn, on the board (unpromoted, promoted) and in hand.
var (
	boardValue = [numKinds][2]int{{}, {0, 0}, {100, 130}, {60, 60}, {50, 60}, {10, 60}}
	handValue  = [numKinds]int{0, 0, 110, 70, 60, 15}
)

const (
	mateValue  = 5000
	matedValue = -1000000
)

// material is a seat's pieces on the board and in hand.
func (p *Position) material(seat int) int {
	v := 0
	for _, pc := range p.board {
		if pc != 0 && pc.owner() == seat && !pc.flipped() {
			v += boardValue[pc.kind()][bool8(pc.promoted())]
		}
	}
	for _, k := range handKinds {
		v += int(p.hands[seat][k]) * handValue[k]
	}
	return v
}

// evaluate is how good p is for seat: mates made, and its material against
// the others'.
func (p *Position) evaluate(seat int) int {
	if !p.live(seat) {
		return matedValue + p.Score(seat)*mateValue
	}
	v := 3*p.material(seat) + mateValue*p.Score(seat)
	for s := range 4 {
		if s != seat && p.live(s) {
			v -= p.material(s)
		}
	}
	return v
}

// greedy is the move of the seat to move that is best for it one move ahead.
func greedy(p *Position, moves []move) (move, Position) {
	seat := int(p.turn)
	best, bestV := moves[0], 0
	var bestPos Position
	for i, m := range moves {
		q := *p
		q.play(m)
		if v := q.evaluate(seat); i == 0 || v > bestV {
			best, bestV, bestPos = m, v, q
		}
	}
	return best, bestPos
}

// choose picks among the legal moves of the seat to move. It stops early,
// with the best move so far, when half of ctx's time has gone.
func choose(ctx context.Context, p *Position, moves []move, depth int) move {
	seat := int(p.turn)
	stop := time.Time{}
	if dl, ok := ctx.Deadline(); ok {
		stop = time.Now().Add(time.Until(dl) / 2)
	}
	best, bestV := moves[0], 0
	buf := make([]move, 0, 256)
	for i, m := range moves {
		if i > 0 && (ctx.Err() != nil || !stop.IsZero() && time.Now().After(stop)) {
			break
		}
		q := *p
		q.play(m)
		for range depth {
			if q.turn < 0 || int(q.turn) == seat {
				break
			}
			buf = q.legalMoves(buf[:0])
			if len(buf) == 0 {
				break
			}
			_, q = greedy(&q, buf)
		}
		v := q.evaluate(seat)
		if i == 0 || v > bestV {
			best, bestV = m, v
		}
	}
	return best
}
