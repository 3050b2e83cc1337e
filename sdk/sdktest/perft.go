package sdktest

import (
	"fmt"

	"github.com/banmen/banmen/sdk"
)

// Perft counts the leaves of the tree of listed legal moves below s, depth
// plies deep, by playing every move of View.Legal through Play. A finished
// game has no children. Every node costs a Play, so it is slow; it is meant
// for small trees and for cross-checking a variant's fast sdk.Perfter against
// the moves the contract lists.
func Perft(v sdk.Variant, s sdk.State, depth int) (uint64, error) {
	view, err := v.View(s)
	if err != nil {
		return 0, err
	}
	return perft(v, s, view, depth)
}

func perft(v sdk.Variant, s sdk.State, view sdk.View, depth int) (uint64, error) {
	if depth <= 0 {
		return 1, nil
	}
	if view.Status == sdk.Over {
		return 0, nil
	}
	if depth == 1 {
		return uint64(len(view.Legal)), nil
	}
	var n uint64
	for _, m := range view.Legal {
		ns, nv, err := v.Play(s, m.Seat, m.Move)
		if err != nil {
			return 0, fmt.Errorf("play %q (seat %d) at %s: %w", m.Move, m.Seat, view.Position, err)
		}
		c, err := perft(v, ns, nv, depth-1)
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}

// DivideEntry is one root move's share of a perft count.
type DivideEntry struct {
	Seat  sdk.Seat
	Move  sdk.Move
	Nodes uint64
	// Position is the variant's position text after the move, for a Perfter.
	Position string
}

// Divide returns, for every listed legal move below s, the Perft count of
// depth-1 below it: the table that finds which move a faulty generator
// miscounts.
func Divide(v sdk.Variant, s sdk.State, depth int) ([]DivideEntry, error) {
	view, err := v.View(s)
	if err != nil {
		return nil, err
	}
	if view.Status == sdk.Over || depth <= 0 {
		return nil, nil
	}
	out := make([]DivideEntry, 0, len(view.Legal))
	for _, m := range view.Legal {
		ns, nv, err := v.Play(s, m.Seat, m.Move)
		if err != nil {
			return nil, fmt.Errorf("play %q (seat %d) at %s: %w", m.Move, m.Seat, view.Position, err)
		}
		c, err := perft(v, ns, nv, depth-1)
		if err != nil {
			return nil, err
		}
		out = append(out, DivideEntry{Seat: m.Seat, Move: m.Move, Nodes: c, Position: nv.Position})
	}
	return out, nil
}
