package sdktest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
)

// analyseLimit is the small budget the suite analyses with: the checks are
// of the answer's form, not of the engine's strength.
var analyseLimit = sdk.Limit{Nodes: 20_000, Time: 2 * time.Second}

// testAnalyse checks an sdk.Analyser: on positions of the random games, a
// score for every seat in seat order (mirrored in a two-player game), a
// best move the seat to move may play, a principal variation that starts
// with it and can be played out; an answer at once with a done context;
// game_over for a finished game and bad_state for garbage bytes.
func (s *suite) testAnalyse(t *testing.T) {
	an, ok := s.v.(sdk.Analyser)
	if !ok {
		t.Skip("not an sdk.Analyser")
	}
	call := func(ctx context.Context, st sdk.State, l sdk.Limit) (a sdk.Analysis, err error) {
		if perr := protect(t, "Analyse", func() { a, err = an.Analyse(ctx, sdk.AnalyseRequest{State: st, Limit: l}) }); perr != nil {
			err = perr
		}
		return a, err
	}
	if _, err := call(context.Background(), s.start, analyseLimit); okRule(err, sdk.CodeUnsupported) && !s.d.Analyse {
		t.Skip("the plugin does not analyse (Description.Analyse is false)")
	}
	r := &reporter{t: t}
	positions := append(s.startPositions(), s.positions(s.rand(700), 1)...)
	positions = positions[:min(len(positions), 6)]
	for _, p := range positions {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		a, err := call(ctx, p.state, analyseLimit)
		cancel()
		if err != nil {
			r.errorf("%s: Analyse: %v", p.name, err)
			continue
		}
		s.checkAnalysis(t, r, p, a)

		for _, expired := range []bool{false, true} {
			var ctx context.Context
			var cancel context.CancelFunc
			if expired {
				ctx, cancel = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			} else {
				ctx, cancel = context.WithCancel(context.Background())
				cancel()
			}
			sw := s.stopwatch()
			a, err := call(ctx, p.state, sdk.Limit{Time: time.Minute})
			cancel()
			if el := sw.elapsed(); el > s.c.SuggestGrace {
				r.errorf("%s: Analyse took %v with a done context", p.name, el)
			}
			if err == nil {
				s.checkAnalysis(t, r, p, a)
			}
		}
	}
	for _, g := range s.over {
		if a, err := call(context.Background(), g.state, analyseLimit); !okRule(err, sdk.CodeGameOver) {
			r.errorf("%s: Analyse of a finished game: %+v, %v; want a *RuleError %s", g.name, a, err, sdk.CodeGameOver)
		}
	}
	for _, b := range [][]byte{nil, []byte("sdktest garbage"), append(slices.Clip(s.start), 0xff)} {
		if a, err := call(context.Background(), b, analyseLimit); !okRule(err, sdk.CodeBadState) {
			r.errorf("Analyse of %d hostile bytes: %+v, %v; want a *RuleError %s", len(b), a, err, sdk.CodeBadState)
		}
	}
}

// testAnalysedExport checks an sdk.AnalysedExporter: a record written with
// analyses, the moves of their lines partly garbage (a host passes on what
// a client sent), reads back in every importable notation as the game it
// records.
func (s *suite) testAnalysedExport(t *testing.T) {
	ae, ok := s.v.(sdk.AnalysedExporter)
	if !ok {
		t.Skip("not an sdk.AnalysedExporter")
	}
	r := &reporter{t: t}
	for _, g := range s.games[:min(len(s.games), 2)] {
		last := len(g.states) - 1
		var as []sdk.PlyAnalysis
		for ply := 0; ply <= last+1; ply++ {
			a := sdk.Analysis{Best: "sdktest-garbage", PV: []sdk.Move{"sdktest-garbage"}}
			if ply < last {
				a.Best, a.PV = g.moves[ply].Move, []sdk.Move{g.moves[ply].Move, "sdktest-garbage"}
			}
			for seat := range s.seats {
				a.Scores = append(a.Scores, sdk.Score{Seat: sdk.Seat(seat), CP: 10 * (ply - seat), Mate: (ply % 5) * (1 - 2*(seat%2))})
			}
			as = append(as, sdk.PlyAnalysis{Ply: ply, Analysis: a})
		}
		want := g.views[last]
		for _, n := range s.d.Notations {
			if !n.Import {
				continue
			}
			var text string
			var err error
			if perr := protect(t, "ExportAnalysed", func() { text, err = ae.ExportAnalysed(g.states[last], n.ID, "en", as) }); perr != nil {
				continue
			}
			if err != nil {
				r.errorf("%s: ExportAnalysed(%q): %v", g.name, n.ID, err)
				continue
			}
			_, iv, err := s.callImport(t, n.ID, text)
			if err != nil {
				r.errorf("%s: Import(%q) of ExportAnalysed's record: %v\n%s", g.name, n.ID, err, clip(text))
				continue
			}
			if iv.Position != want.Position || iv.Ply != want.Ply || !slices.Equal(historyMoves(iv), historyMoves(want)) {
				r.errorf("%s: Import(%q) of ExportAnalysed's record gives another game (%s ply %d, want %s ply %d)\n%s",
					g.name, n.ID, iv.Position, iv.Ply, want.Position, want.Ply, clip(text))
			}
		}
	}
}

// checkAnalysis checks the form of an analysis of p.
func (s *suite) checkAnalysis(t *testing.T, r *reporter, p position, a sdk.Analysis) {
	if len(a.Scores) != s.seats {
		r.errorf("%s: %d scores, want one per seat (%d)", p.name, len(a.Scores), s.seats)
		return
	}
	for i, sc := range a.Scores {
		if sc.Seat != sdk.Seat(i) {
			r.errorf("%s: Scores[%d] is seat %d's", p.name, i, sc.Seat)
		}
		if sc.Mate != 0 && sc.CP != 0 {
			r.errorf("%s: seat %d's score has both mate %d and %d centipawns", p.name, i, sc.Mate, sc.CP)
		}
	}
	if s.seats == 2 && (a.Scores[0].CP != -a.Scores[1].CP || a.Scores[0].Mate != -a.Scores[1].Mate) {
		r.errorf("%s: the two seats' scores %v and %v do not mirror each other", p.name, a.Scores[0], a.Scores[1])
	}
	if len(a.PV) == 0 || a.PV[0] != a.Best {
		r.errorf("%s: principal variation %v does not start with the best move %q", p.name, a.PV, a.Best)
		return
	}
	st, v := p.state, p.view
	for i, m := range a.PV {
		at := slices.IndexFunc(v.Legal, func(lm sdk.LegalMove) bool { return lm.Move == m && slices.Contains(v.ToMove, lm.Seat) })
		if at < 0 {
			r.errorf("%s: move %d of the principal variation %v, %q, is not a listed legal move", p.name, i, a.PV, m)
			return
		}
		var err error
		if st, v, err = s.callPlay(t, st, v.Legal[at].Seat, m); err != nil {
			r.errorf("%s: move %d of the principal variation %v, %q: %v", p.name, i, a.PV, m, err)
			return
		}
		if v.Status != sdk.Playing && i < len(a.PV)-1 {
			r.errorf("%s: the principal variation %v goes on after the game ends at move %d", p.name, a.PV, i)
			return
		}
	}
}
