package rules

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// startPerft are the start-position perft counts (default options, South to
// move). Source: computed by this engine and confirmed, to depth 4, by the
// independent generator of reference_test.go in TestPerftStart; depths 5 and
// 6 by the same generator with -deep (go test ./plugins/yonin/rules -run
// Perft -deep, which the bench command runs with its -deep flag).
// The first four plies are one move by each seat, whose camps do not touch:
// hence 9^4.
var startPerft = []uint64{1, 9, 81, 729, 6561, 82134, 1055321}

// deep turns on the slow cross-checks: the reference generator to depth 6 on
// the start, and on every sampled position to depth 3 where the tree is small
// enough (all of them took 15 minutes on a shared machine; they agreed).
var deep = flag.Bool("deep", false, "run the slow perft cross-checks against the reference generator")

func TestPerftStart(t *testing.T) {
	ref := refStart()
	refDepth := 4
	if *deep {
		refDepth = 6
	}
	for depth := 1; depth < len(startPerft); depth++ {
		if depth > 4 && testing.Short() {
			break
		}
		got, err := Variant{}.Perft(context.Background(), "", depth)
		if err != nil {
			t.Fatal(err)
		}
		if got != startPerft[depth] {
			p := startPosition(Rules{}, 0)
			t.Fatalf("perft %d = %d, want %d\n%s", depth, got, startPerft[depth], divideText(&p, depth))
		}
		if depth <= refDepth {
			if r := ref.perft(depth); r != got {
				t.Fatalf("reference perft %d = %d, engine %d", depth, r, got)
			}
		}
	}
}

// samplePositions plays seeded random games under each rule set and returns
// positions along them, hands, mates and inherited pieces included.
func samplePositions(seed uint64, games int) []Position {
	rules := []Rules{{}, {Pairs: true}, {LastPlayer: true}, {Ownerless: true}, {LastPlayer: true, Ownerless: true}}
	rnd := rand.New(rand.NewPCG(seed, 1))
	var out []Position
	for i := range games {
		p := startPosition(rules[i%len(rules)], i%4)
		for ply := 0; ply < 400 && p.turn >= 0; ply++ {
			moves := p.legalMoves(nil)
			if len(moves) == 0 {
				break
			}
			// Prefer captures so that hands fill and mates come.
			m := moves[rnd.IntN(len(moves))]
			for range 3 {
				if c := moves[rnd.IntN(len(moves))]; !c.isDrop() && p.board[c.to()] != 0 {
					m = c
				}
			}
			p.play(m)
			if ply%60 == 59 && p.turn >= 0 {
				out = append(out, p)
			}
		}
	}
	return out
}

func TestPerftAgainstReference(t *testing.T) {
	positions := samplePositions(7, 10)
	step := 2
	if testing.Short() {
		step = 6
	}
	mates, checked := 0, 0
	for i, p := range positions {
		if i%step != 0 && !*deep {
			continue
		}
		checked++
		mates += int(p.nmates)
		// Depth 3 where the reference can afford it: few moves here, or
		// with -deep a small enough tree two plies down.
		depth := 2
		if len(p.legalMoves(nil)) <= 15 {
			depth = 3
		} else if *deep {
			if n, _ := perft(context.Background(), &p, 2, newBufs(2)); n <= 4000 {
				depth = 3
			}
		}
		got, _ := perft(context.Background(), &p, depth, newBufs(depth))
		ref := refFrom(&p)
		if want := ref.perft(depth); got != want {
			t.Errorf("%s: perft %d = %d, reference %d\n%s", p.Text(), depth, got, want, compareDivide(&p, ref, depth))
		}
	}
	if mates == 0 {
		t.Error("the sample has no mated seat")
	}
	t.Logf("%d positions checked, %d mates among them", checked, mates)
}

// divideText prints the engine's divide, one move per line.
func divideText(p *Position, depth int) string {
	d := divide(p, depth)
	var lines []string
	for m, n := range d {
		lines = append(lines, fmt.Sprintf("%s %d", m, n))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// compareDivide prints the first moves whose counts differ between the engine
// and the reference.
func compareDivide(p *Position, ref *refPos, depth int) string {
	eng := divide(p, depth)
	var b strings.Builder
	seen := map[string]bool{}
	for _, m := range ref.legalMoves(ref.turn, 0) {
		text := refMoveText(ref.turn, m)
		seen[text] = true
		q := ref.clone()
		q.apply(ref.turn, m)
		q.settle(ref.turn, 0)
		var n uint64 = 1
		if depth > 1 {
			n = 0
			if q.turn >= 0 {
				n = q.perft(depth - 1)
			}
		}
		if e, ok := eng[text]; !ok || e != n {
			fmt.Fprintf(&b, "%s engine %d (listed %v) reference %d\n", text, e, ok, n)
		}
	}
	for m, n := range eng {
		if !seen[m] {
			fmt.Fprintf(&b, "%s engine %d, not in the reference\n", m, n)
		}
	}
	return b.String()
}

func refMoveText(seat int, m refMove) string {
	sqText := func(c refXY) string { return squareText(c.y*9 + c.x) }
	s := string(seatUpper[seat]) + ":"
	if m.drop != 0 {
		return s + string(m.drop) + "*" + sqText(m.to)
	}
	s += sqText(m.from) + sqText(m.to)
	if m.promote {
		s += "+"
	}
	return s
}

func BenchmarkPerftStart(b *testing.B) {
	p := startPosition(Rules{}, 0)
	bufs := newBufs(5)
	var n uint64
	for b.Loop() {
		c, _ := perft(context.Background(), &p, 5, bufs)
		n += c
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "nodes/s")
}

func BenchmarkPerftMidgame(b *testing.B) {
	ps := samplePositions(7, 5)
	bufs := newBufs(3)
	var n uint64
	for b.Loop() {
		for _, p := range ps {
			c, _ := perft(context.Background(), &p, 2, bufs)
			n += c
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "nodes/s")
}
