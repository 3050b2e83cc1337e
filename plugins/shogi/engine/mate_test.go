package engine

import (
	"context"
	"testing"
	"time"

	"github.com/banmen/banmen/plugins/shogi/rules"
	"github.com/banmen/banmen/sdk"
)

// longMates are tsume problems whose attacker has no king (one is added in
// a far corner) and whose defender holds every other piece: mates in one
// and three on paper, but each futile interposition (a drop that only
// delays the mate) counts, and Fairy-Stockfish finds them as mates in 13,
// 15, 5 and 7 plies (github.com/antma/tsumeshogi-check, tests/tsume1.rs,
// tsume5.rs, tsume7.rs).
var longMates = []struct {
	sfen string
	n    int
}{
	{"k8/9/1K7/9/9/9/8B/8B/9 b 2r4g4s4n4l18p 1", 13},
	{"7pk/9/7K1/5+r3/9/9/9/1B7/R8 b b4g4s4n4l17p 1", 15},
	{"9/9/5k3/9/4G4/4P4/9/9/8K b 3G2r2b4s4n4l17p 1", 5},
	{"9/9/9/4k4/9/4P4/9/9/8K b 4G2r2b4s4n4l17p 1", 7},
}

// playsOut plays line from sfen through the rules and tells whether its
// last move wins the game for the side that began.
func playsOut(t *testing.T, sfen string, line []rules.Move) bool {
	t.Helper()
	st := stateOf(t, "sfen "+sfen)
	for i, m := range line[:len(line)-1] {
		v, _ := (rules.Variant{}).View(st)
		var err error
		if st, _, err = (rules.Variant{}).Play(st, v.ToMove[0], sdk.Move(m.USI())); err != nil {
			t.Fatalf("%s: move %d of %v: %v", sfen, i, line, err)
		}
	}
	return won(t, st, sdk.Move(line[len(line)-1].USI()))
}

// TestFindMateInterpositions: the proof-number search proves the long
// mates at their length within a few thousand positions (the old
// iterative search needed seconds for the first two), and their lines,
// played through the rules, mate.
func TestFindMateInterpositions(t *testing.T) {
	s := newMateSearcher()
	for _, tc := range longMates {
		l := lineOf(t, "sfen "+tc.sfen)
		n, line := findMate(context.Background(), s, l.Pos, maxMateDepth, 200_000, time.Time{})
		if n != tc.n {
			t.Errorf("%s: mate %d, want %d", tc.sfen, n, tc.n)
			continue
		}
		if len(line) != n || !playsOut(t, tc.sfen, line) {
			t.Errorf("%s: the line %v is not a mate in %d", tc.sfen, line, n)
		}
	}
}

// bruteMate is the shortest mate of checks within depth plies by a plain
// search of every check and every answer: the reference the proof-number
// search must agree with.
func bruteMate(p *rules.Position, depth int) int {
	for d := 1; d <= depth; d += 2 {
		if bruteAttack(p, d) {
			return d
		}
	}
	return 0
}

func bruteAttack(p *rules.Position, d int) bool {
	for _, m := range p.GenerateMoves(nil) {
		u := p.DoMove(m)
		ok := p.InCheck() && bruteDefend(p, d-1)
		p.UndoMove(m, u)
		if ok {
			return true
		}
	}
	return false
}

func bruteDefend(p *rules.Position, d int) bool {
	moves := p.GenerateMoves(nil)
	if len(moves) == 0 {
		return true
	}
	if d == 0 {
		return false
	}
	for _, m := range moves {
		u := p.DoMove(m)
		ok := bruteAttack(p, d-1)
		p.UndoMove(m, u)
		if !ok {
			return false
		}
	}
	return true
}

// TestFindMateAgreesWithBruteForce: on the engine's mates, the long mates
// and the positions of games played at random (many with checks and no
// mate), the mate search finds a mate within three plies exactly when a
// plain search of every check and answer does, at the same length, and
// its line mates.
func TestFindMateAgreesWithBruteForce(t *testing.T) {
	var sfens []string
	sfens = append(sfens, mateInOne...)
	sfens = append(sfens, mateInThree...)
	for _, m := range longMates {
		sfens = append(sfens, m.sfen)
	}
	sfens = append(sfens,
		"5k1pR/9/4+B4/3n5/9/9/9/9/4K4 b LP 1",
		"7nl/7k1/6Ppp/9/9/9/9/9/4K4 b 2G2r2b2g4s3n3l15p 1",
		"9/6k2/9/5G3/4G4/4P4/9/9/K8 b 2G2r2b4s4n4l17p 1",
	)
	// Positions from random games, with whatever is in hand by then.
	v := rules.Variant{}
	for seed := range 40 {
		st, view, _ := v.Start(nil)
		for i := 0; i < 30+seed*3 && view.Status == sdk.Playing; i++ {
			var moves []sdk.Move
			for _, m := range view.Legal {
				if m.Kind != sdk.Action && m.Move != sdk.Resign {
					moves = append(moves, m.Move)
				}
			}
			var err error
			if st, view, err = v.Play(st, view.ToMove[0], moves[(i*7+seed*13)%len(moves)]); err != nil {
				t.Fatal(err)
			}
		}
		if view.Status == sdk.Playing {
			l, err := rules.DecodeLine(st)
			if err != nil {
				t.Fatal(err)
			}
			sfens = append(sfens, l.Pos.SFEN())
		}
	}
	// The mate search skips the moves mayCheck says cannot check: none
	// of them may.
	for _, sfen := range sfens {
		l := lineOf(t, "sfen "+sfen)
		p := l.Pos
		ks := p.KingCell(1 - p.Side())
		for _, m := range p.GenerateMoves(nil) {
			u := p.DoMove(m)
			if p.InCheck() && !mayCheck(&l.Pos, m, ks) {
				t.Errorf("%s: %s checks, mayCheck says it cannot", sfen, m.USI())
			}
			p.UndoMove(m, u)
		}
	}
	s := newMateSearcher()
	mates := 0
	for _, sfen := range sfens {
		l := lineOf(t, "sfen "+sfen)
		want := bruteMate(&l.Pos, 3)
		n, line := findMate(context.Background(), s, l.Pos, 3, 0, time.Time{})
		if n != want {
			t.Errorf("%s: mate %d, the plain search says %d", sfen, n, want)
			continue
		}
		if n > 0 {
			mates++
			if len(line) != n || !playsOut(t, sfen, line) {
				t.Errorf("%s: the line %v is not a mate in %d", sfen, line, n)
			}
		}
	}
	if mates < 10 {
		t.Errorf("only %d mates among %d positions", mates, len(sfens))
	}
	// Five plies on tsume5 problems (github.com/antma/tsumeshogi-check,
	// tests/tsume5.rs, a Sente king added), where the plain search is
	// still quick.
	for _, sfen := range []string{
		"9/9/5k3/9/4G4/4P4/9/9/K8 b 3G2r2b4s4n4l17p 1",
		"4R2nl/6sk1/6pp1/8p/9/9/9/9/K8 b BGLrb3g3s3n2l15p 1",
		"9/9/3S5/3p1p3/4kb3/3P2s2/4P4/4N4/K8 b RNrb3g2s2n4l14p 1",
		"7r1/7k1/4r4/5N+Bp1/8p/9/9/9/K8 b G2Nb3g4sn4l16p 1",
		"6knl/6s2/5Pppp/9/9/9/9/9/K8 b G2S2r2b3gs3n3l14p 1",
	} {
		l := lineOf(t, "sfen "+sfen)
		want := bruteMate(&l.Pos, 5)
		if n, line := findMate(context.Background(), s, l.Pos, 5, 0, time.Time{}); n != want || n > 0 && (len(line) != n || !playsOut(t, sfen, line)) {
			t.Errorf("%s: mate %d (%v), the plain search says %d", sfen, n, line, want)
		}
	}
}

// TestAnalyseLongMates: the analysis reports the interposition mates at
// their length, from the mating side's view and the mirror, with the mate
// line as its principal variation, within a fifth of the default limit's
// nodes (the mate search has a third of them).
func TestAnalyseLongMates(t *testing.T) {
	v := New(func(string) string { return "" })
	for _, tc := range longMates[:2] {
		s := stateOf(t, "sfen "+tc.sfen)
		a, err := v.Analyse(context.Background(), sdk.AnalyseRequest{State: s, Limit: sdk.Limit{Nodes: 60_000}})
		if err != nil {
			t.Fatal(err)
		}
		if a.Scores[0].Mate != tc.n || a.Scores[1].Mate != -tc.n {
			t.Errorf("%s: scores %v, want mate %d for Sente", tc.sfen, a.Scores, tc.n)
			continue
		}
		line := make([]rules.Move, len(a.PV))
		l := lineOf(t, "sfen "+tc.sfen)
		p := l.Pos
		for i, m := range a.PV {
			for _, lm := range p.GenerateMoves(nil) {
				if sdk.Move(lm.USI()) == m {
					line[i] = lm
				}
			}
			if line[i] == 0 {
				t.Fatalf("%s: %s of %v is not legal", tc.sfen, m, a.PV)
			}
			p.DoMove(line[i])
		}
		if a.PV[0] != a.Best || len(line) != tc.n || !playsOut(t, tc.sfen, line) {
			t.Errorf("%s: best %s, line %v: not a mate in %d", tc.sfen, a.Best, a.PV, tc.n)
		}
	}
}
