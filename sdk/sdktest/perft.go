package sdktest

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

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

// testPerft compares an sdk.Perfter's counts with the listed legal moves.
func (s *suite) testPerft(t *testing.T) {
	p, ok := s.v.(sdk.Perfter)
	if !ok {
		t.Skip("not a Perfter")
	}
	if s.c.PerftNodes < 0 {
		t.Skip("PerftNodes < 0")
	}
	ctx := context.Background()
	// Across the process boundary every variant looks like a Perfter; one
	// that is not answers unsupported, which is its right.
	if _, err := p.Perft(ctx, "", 1); err != nil {
		if re, ok := sdk.AsRuleError(err); ok && re.Code == sdk.CodeUnsupported {
			t.Skipf("the variant does not count perft: %v", err)
		}
	}
	for depth := 1; depth <= 6; depth++ {
		var want uint64
		var err error
		if protect(t, "Perft through Play", func() { want, err = Perft(s.v, s.start, depth) }) != nil {
			return
		}
		if err != nil {
			t.Fatalf("Perft(start, %d) through Play: %v", depth, err)
		}
		for _, pos := range []string{"", s.startView.Position} {
			var got uint64
			var err error
			if protect(t, "Perft", func() { got, err = p.Perft(ctx, pos, depth) }) != nil {
				return
			}
			if err != nil {
				t.Errorf("Perft(%q, %d): %v", pos, depth, err)
			} else if got != want {
				t.Errorf("Perft(%q, %d) = %d, but the listed legal moves give %d%s", pos, depth, got, want, s.divide(ctx, p, depth))
				return
			}
		}
		t.Logf("perft %d = %d", depth, want)
		if want == 0 || want > uint64(s.c.PerftNodes) { // the next depth plays every leaf
			break
		}
	}

	if dv, ok := s.v.(sdk.Divider); ok {
		s.checkDivider(t, dv)
	}

	// Early plies of the random games: one level deep, the count must be
	// the number of listed moves (later plies could depend on history).
	r := &reporter{t: t}
	for _, g := range s.games {
		for i := 1; i < min(8, len(g.views)); i++ {
			v := g.views[i]
			got, err := p.Perft(ctx, v.Position, 1)
			want := uint64(len(v.Legal))
			if v.Status == sdk.Over {
				want = 0
			}
			if err != nil {
				r.errorf("%s ply %d: Perft(%q, 1): %v", g.name, i, v.Position, err)
			} else if got != want {
				r.errorf("%s ply %d: Perft(%q, 1) = %d, but %d moves are listed", g.name, i, v.Position, got, want)
			}
		}
	}

	for _, bad := range []string{"sdktest garbage \x00", "\xff"} {
		var err error
		if protect(t, "Perft", func() { _, err = p.Perft(ctx, bad, 1) }) == nil && err == nil {
			t.Errorf("Perft(%q, 1) accepted a garbage position", bad)
		}
	}

	// A cancelled context must stop a deep count quickly.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	done := make(chan string, 1)
	go func() {
		// This goroutine may outlive the test: it must not touch t.
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Sprintf("Perft with a cancelled context panicked: %v", r)
			}
		}()
		if _, err := p.Perft(cctx, "", 64); err == nil {
			done <- "Perft with a cancelled context returned no error"
		}
		done <- ""
	}()
	select {
	case msg := <-done:
		if msg != "" {
			t.Error(msg)
		}
	case <-time.After(2 * time.Second):
		t.Errorf("Perft with a cancelled context did not return within 2 s (check ctx.Err() inside the recursion, not only between root moves)")
	}
}

// checkDivider compares an sdk.Divider's split of perft 2 from the start
// with the listed legal moves.
func (s *suite) checkDivider(t *testing.T, dv sdk.Divider) {
	want, err := Divide(s.v, s.start, 2)
	if err != nil {
		t.Errorf("Divide(start, 2) through Play: %v", err)
		return
	}
	var got map[string]uint64
	if protect(t, "Divide", func() { got, err = dv.Divide(context.Background(), "", 2) }) != nil {
		return
	}
	if err != nil {
		t.Errorf("Divide(\"\", 2): %v", err)
		return
	}
	if len(got) != len(want) {
		t.Errorf("Divide(\"\", 2) has %d root moves, %d are listed", len(got), len(want))
	}
	for _, e := range want {
		if n, ok := got[string(e.Move)]; !ok || n != e.Nodes {
			t.Errorf("Divide(\"\", 2)[%q] = %d (present %v), the listed moves give %d", e.Move, n, ok, e.Nodes)
		}
	}
}

// divide explains a perft mismatch move by move.
func (s *suite) divide(ctx context.Context, p sdk.Perfter, depth int) string {
	if depth < 2 {
		return ""
	}
	entries, err := Divide(s.v, s.start, depth)
	if err != nil {
		return "\n\tdivide: " + err.Error()
	}
	var b bytes.Buffer
	b.WriteString("\n\tmove: listed / Perfter")
	for _, e := range entries {
		got, err := p.Perft(ctx, e.Position, depth-1)
		mark := ""
		if err != nil || got != e.Nodes {
			mark = "  <--"
		}
		fmt.Fprintf(&b, "\n\t%s: %d / %d%s", e.Move, e.Nodes, got, mark)
		if err != nil {
			fmt.Fprintf(&b, " (%v)", err)
		}
	}
	return b.String()
}
