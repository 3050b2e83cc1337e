package sdktest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// checkTransition checks the view after a listed move m was played from the
// view before.
func (s *suite) checkTransition(before sdk.View, m sdk.LegalMove, after sdk.View) []string {
	var bad []string
	if err := CheckView(s.d, after); err != nil {
		bad = append(bad, err.Error())
	}
	if after.Ply != before.Ply+1 {
		bad = append(bad, fmt.Sprintf("ply %d after ply %d, want one more", after.Ply, before.Ply))
	}
	if len(after.History) != len(before.History)+1 {
		bad = append(bad, fmt.Sprintf("history of %d moves after %d, want one more", len(after.History), len(before.History)))
	} else {
		for i, h := range before.History {
			if after.History[i].Move != h.Move || after.History[i].Seat != h.Seat {
				bad = append(bad, fmt.Sprintf("history move %d changed from %+v to %+v", i, h, after.History[i]))
				break
			}
		}
		last := after.History[len(after.History)-1]
		if last.Move != m.Move || last.Seat != m.Seat || last.Text != m.Text {
			bad = append(bad, fmt.Sprintf("last history entry %+v, want move %q, seat %d, text %q", last, m.Move, m.Seat, m.Text))
		}
	}
	switch lm := after.LastMove; {
	case lm == nil:
		bad = append(bad, "no LastMove")
	case lm.Move != m.Move || lm.Seat != m.Seat || lm.Kind != m.Kind || lm.From != m.From ||
		lm.To != m.To || lm.Drop != m.Drop || lm.Promote != m.Promote:
		bad = append(bad, fmt.Sprintf("LastMove %+v does not match the listed move %+v", *lm, m))
	}
	return bad
}

func (s *suite) testGames(t *testing.T) {
	for i := range s.c.Games {
		opts := s.c.Options[i%len(s.c.Options)]
		name := fmt.Sprintf("game%d", i)
		t.Run(name, func(t *testing.T) {
			g := s.playRandom(t, name, uint64(i), opts)
			if g != nil {
				s.games = append(s.games, g)
				last := len(g.views) - 1
				if last > 0 && g.views[last].Status == sdk.Over {
					s.over = append(s.over, overGame{name, g.states[last], g.moves[last-1].Seat, g.moves[last-1].Move})
				}
				t.Logf("options %v: %d plies, status %s %s", opts, last, g.views[last].Status, resultText(g.views[last].Result))
			}
		})
	}
}

func resultText(r *sdk.Result) string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("(%s, winners %v)", r.Reason, r.Winners)
}

// playRandom plays a seeded random game, checking every step, and returns
// what it played (nil when the game could not start).
func (s *suite) playRandom(t *testing.T, name string, stream uint64, opts sdk.Options) *game {
	rnd := s.rand(stream)
	st, view, err := s.callStart(t, opts)
	if err != nil {
		t.Errorf("Start(%v): %v", opts, err)
		return nil
	}
	if err := CheckView(s.d, view); err != nil {
		t.Errorf("start view:\n%v", err)
		return nil
	}
	g := &game{name: name, opts: opts, states: []sdk.State{st}, views: []sdk.View{view}}
	for ply := 0; ply < s.c.MaxPlies && view.Status == sdk.Playing && len(view.Legal) > 0; ply++ {
		m := view.Legal[rnd.IntN(len(view.Legal))]
		orig := bytes.Clone(st)
		ns, nv, err := s.callPlay(t, st, m.Seat, m.Move)
		if !bytes.Equal(orig, st) {
			t.Errorf("ply %d: Play changed the bytes of its state argument", ply)
			return g
		}
		if err != nil {
			t.Errorf("ply %d at %s: listed move %q of seat %d rejected: %v", ply, view.Position, m.Move, m.Seat, err)
			return g
		}
		if bad := s.checkTransition(view, m, nv); len(bad) > 0 {
			t.Errorf("ply %d at %s, after %q by seat %d:\n%s", ply, view.Position, m.Move, m.Seat, joinLines(bad))
			return g
		}
		rv, err := s.callView(t, ns)
		if err != nil {
			t.Errorf("ply %d: View of the state Play returned after %q: %v", ply, m.Move, err)
			return g
		}
		if diff := diffViews(nv, rv); diff != "" {
			t.Errorf("ply %d: View(state) differs from Play's view after %q: %s", ply, m.Move, diff)
			return g
		}
		st, view = ns, nv
		g.states, g.views, g.moves = append(g.states, st), append(g.views, view), append(g.moves, m)
	}
	return g
}

func joinLines(lines []string) string {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString("\t")
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}

// testLegal plays every listed move at a few positions of each game.
func (s *suite) testLegal(t *testing.T) {
	r := &reporter{t: t}
	budget := 600 // Play calls: a slow variant's Play takes milliseconds
	for _, p := range s.positions(s.rand(100), 2) {
		for _, m := range p.view.Legal {
			if budget--; budget < 0 || r.done() {
				return
			}
			_, nv, err := s.callPlay(t, p.state, m.Seat, m.Move)
			if err != nil {
				r.errorf("%s: listed move %q of seat %d rejected: %v", p.name, m.Move, m.Seat, err)
				continue
			}
			if bad := s.checkTransition(p.view, m, nv); len(bad) > 0 {
				r.errorf("%s, after %q by seat %d:\n%s", p.name, m.Move, m.Seat, joinLines(bad))
			}
		}
	}
}

// perturb returns texts near m: one character changed, dropped or added,
// halves swapped ("7g7f" → "7f7g"), case changed, suffixes.
func perturb(r *rand.Rand, m string, alphabet []rune) []string {
	rs := []rune(m)
	if len(rs) == 0 {
		return nil
	}
	pick := func() rune { return alphabet[r.IntN(len(alphabet))] }
	changed := slices.Clone(rs)
	changed[r.IntN(len(rs))] = pick()
	i := r.IntN(len(rs))
	dropped := slices.Delete(slices.Clone(rs), i, i+1)
	added := slices.Insert(slices.Clone(rs), r.IntN(len(rs)+1), pick())
	h := len(rs) / 2
	swapped := string(rs[h:]) + string(rs[:h])
	rev := slices.Clone(rs)
	slices.Reverse(rev)
	return []string{string(changed), string(dropped), string(added), swapped, string(rev),
		m + "+", m + "=", m + m, " " + m, m + " ", bytesUpper(m), bytesLower(m)}
}

func bytesUpper(s string) string { return string(bytes.ToUpper([]byte(s))) }

func bytesLower(s string) string { return string(bytes.ToLower([]byte(s))) }

func garbageText(r *rand.Rand, n int, printable bool) string {
	b := make([]byte, n)
	for i := range b {
		if printable {
			b[i] = byte(' ' + r.IntN(95))
		} else {
			b[i] = byte(r.IntN(256))
		}
	}
	return string(b)
}

// testReject plays texts that are not listed and expects rejections that
// leave the state as it was.
func (s *suite) testReject(t *testing.T) {
	r := &reporter{t: t}
	rnd := s.rand(200)
	for _, p := range append(s.startPositions(), s.positions(rnd, 2)...) {
		if len(p.view.Legal) == 0 {
			continue
		}
		listed := map[sdk.Move]bool{sdk.Resign: true, sdk.Abandon: true}
		var alphabet []rune
		for _, m := range p.view.Legal {
			listed[m.Move] = true
			alphabet = append(alphabet, []rune(string(m.Move))...)
		}
		alphabet = append(alphabet, []rune("0123456789abcijxyz*+-=@#")...)
		seat := p.view.Legal[0].Seat
		type cand struct {
			seat sdk.Seat
			text string
		}
		var cands []cand
		for range min(4, len(p.view.Legal)) {
			m := p.view.Legal[rnd.IntN(len(p.view.Legal))]
			for _, x := range perturb(rnd, string(m.Move), alphabet) {
				cands = append(cands, cand{m.Seat, x})
			}
		}
		for _, x := range []string{"", " ", "\x00", "\xff\xfe", "-1", "null", garbageText(rnd, 1+rnd.IntN(12), true),
			garbageText(rnd, 1+rnd.IntN(12), false), garbageText(rnd, 2000, true)} {
			cands = append(cands, cand{seat, x})
		}
		for _, c := range cands {
			if listed[sdk.Move(c.text)] || r.done() {
				continue
			}
			orig := bytes.Clone(p.state)
			_, _, err := s.callPlay(t, p.state, c.seat, sdk.Move(c.text))
			if !bytes.Equal(orig, p.state) {
				r.errorf("%s: Play(%q) changed the bytes of its state argument", p.name, clip(c.text))
				return
			}
			if ok, why := isRuleError(err, ""); !ok {
				r.errorf("%s: Play(seat %d, %q), not a listed move: %s; want a RuleError (a move has exactly one text, the listed one)",
					p.name, c.seat, clip(c.text), why)
			}
		}
	}
}

func (s *suite) startPositions() []position {
	if s.startView == nil {
		return nil
	}
	return []position{{"start (" + s.startView.Position + ")", s.start, *s.startView}}
}

// testSeats plays listed moves by seats that are not to move.
func (s *suite) testSeats(t *testing.T) {
	r := &reporter{t: t}
	for _, p := range append(s.startPositions(), s.positions(s.rand(300), 2)...) {
		if len(p.view.Legal) == 0 {
			continue
		}
		m := p.view.Legal[0]
		seats := []sdk.Seat{-1, sdk.Seat(s.seats), 99}
		for i := range s.seats {
			if !slices.Contains(p.view.ToMove, sdk.Seat(i)) {
				seats = append(seats, sdk.Seat(i))
			}
		}
		for _, seat := range seats {
			_, _, err := s.callPlay(t, p.state, seat, m.Move)
			if ok, why := isRuleError(err, ""); !ok {
				r.errorf("%s: Play(seat %d, %q) by a seat not to move (%v): %s; want a RuleError", p.name, seat, m.Move, p.view.ToMove, why)
			}
		}
	}
}

func (s *suite) testResign(t *testing.T) {
	r := &reporter{t: t}
	if !s.d.Resign {
		for i := range s.seats {
			_, _, err := s.callPlay(t, s.start, sdk.Seat(i), sdk.Resign)
			if ok, why := isRuleError(err, ""); !ok {
				r.errorf("Play(seat %d, %q) where Describe says no resigning: %s; want a RuleError", i, sdk.Resign, why)
			}
		}
		return
	}
	// Every seat resigns first; in a game of more than two, the others
	// follow until the game ends, with one seat left in.
	for first := range s.seats {
		st, view := s.start, *s.startView
		var gone []sdk.Seat
		for k := 0; k < max(1, s.seats-1) && view.Status == sdk.Playing; k++ {
			seat := sdk.Seat((first + k) % s.seats)
			ns, nv, err := s.callPlay(t, st, seat, sdk.Resign)
			if err != nil {
				r.errorf("Play(seat %d, %q) after %v resigned: %v", seat, sdk.Resign, gone, err)
				break
			}
			if err := CheckView(s.d, nv); err != nil {
				r.errorf("view after seat %d resigned:\n%v", seat, err)
			}
			if rv, err := s.callView(t, ns); err != nil {
				r.errorf("View of the state after seat %d resigned: %v", seat, err)
			} else if diff := diffViews(nv, rv); diff != "" {
				r.errorf("View(state) differs from Play's view after seat %d resigned: %s", seat, diff)
			}
			st, view = ns, nv
			gone = append(gone, seat)
		}
		if view.Status != sdk.Over || view.Result == nil {
			r.errorf("seats %v resigned at the start but the game is not over (status %q)", gone, view.Status)
			continue
		}
		for _, w := range view.Result.Winners {
			if slices.Contains(gone, w) {
				r.errorf("seat %d resigned but is among the winners %v", w, view.Result.Winners)
			}
		}
		if s.seats == 2 && !slices.Equal(view.Result.Winners, []sdk.Seat{1 - gone[0]}) {
			r.errorf("seat %d resigned: winners %v, want [%d]", gone[0], view.Result.Winners, 1-gone[0])
		}
		for _, n := range s.d.Notations {
			if _, err := s.callExport(t, st, n.ID); err != nil {
				r.errorf("Export(%q) of a resigned game: %v", n.ID, err)
			}
		}
		m := s.startView.Legal[0]
		s.over = append(s.over, overGame{fmt.Sprintf("resigned by %v", gone), st, m.Seat, m.Move})
	}
}

// testAbandon plays Abandon for every seat at the start, on its turn and
// out of it: where Describe says Abandon, the game ends with that seat
// among the losers and the reason sdk.ReasonAbandoned, and every notation
// writes it; where it does not, Abandon is a RuleError.
func (s *suite) testAbandon(t *testing.T) {
	r := &reporter{t: t}
	for i := range s.seats {
		seat := sdk.Seat(i)
		st, view, err := s.callPlay(t, s.start, seat, sdk.Abandon)
		if !s.d.Abandon {
			if ok, why := isRuleError(err, ""); !ok {
				r.errorf("Play(seat %d, %q) where Describe says no Abandon: %s; want a RuleError", i, sdk.Abandon, why)
			}
			continue
		}
		if err != nil {
			r.errorf("Play(seat %d, %q) at the start: %v", i, sdk.Abandon, err)
			continue
		}
		if err := CheckView(s.d, view); err != nil {
			r.errorf("view after seat %d abandoned:\n%v", i, err)
		}
		if rv, err := s.callView(t, st); err != nil {
			r.errorf("View of the state after seat %d abandoned: %v", i, err)
		} else if diff := diffViews(view, rv); diff != "" {
			r.errorf("View(state) differs from Play's view after seat %d abandoned: %s", i, diff)
		}
		if s.seats == 2 {
			if view.Status != sdk.Over || view.Result == nil {
				r.errorf("seat %d abandoned but the game is not over (status %q)", i, view.Status)
				continue
			}
			if !slices.Equal(view.Result.Winners, []sdk.Seat{1 - seat}) || view.Result.Reason != sdk.ReasonAbandoned {
				r.errorf("seat %d abandoned: winners %v, reason %q; want [%d], %q", i, view.Result.Winners, view.Result.Reason, 1-seat, sdk.ReasonAbandoned)
			}
		} else if view.Result != nil && slices.Contains(view.Result.Winners, seat) {
			r.errorf("seat %d abandoned but is among the winners %v", i, view.Result.Winners)
		}
		for _, n := range s.d.Notations {
			if _, err := s.callExport(t, st, n.ID); err != nil {
				r.errorf("Export(%q) of a game seat %d abandoned: %v", n.ID, i, err)
			}
		}
	}
}

func (s *suite) testOver(t *testing.T) {
	r := &reporter{t: t}
	if len(s.over) == 0 {
		t.Skip("no game ended (no resigning and no random game finished within MaxPlies)")
	}
	for _, o := range s.over[:min(len(s.over), 6)] {
		view, err := s.callView(t, o.state)
		if err != nil {
			r.errorf("%s: View: %v", o.name, err)
			continue
		}
		if len(view.Legal) != 0 || len(view.ToMove) != 0 {
			r.errorf("%s: a finished game lists %d legal moves and seats to move %v", o.name, len(view.Legal), view.ToMove)
		}
		moves := []sdk.Move{o.move}
		if s.d.Resign {
			moves = append(moves, sdk.Resign)
		}
		for _, m := range moves {
			_, _, err := s.callPlay(t, o.state, o.seat, m)
			if ok, why := isRuleError(err, sdk.CodeGameOver); !ok {
				r.errorf("%s: Play(seat %d, %q) after the end: %s", o.name, o.seat, m, why)
			}
		}
		for _, l := range s.d.Levels[:min(1, len(s.d.Levels))] {
			if s.sg == nil {
				break // reported by the suggest test
			}
			ctx, cancel := context.WithTimeout(context.Background(), s.c.SuggestDeadline)
			sw := s.stopwatch()
			m, err := s.callSuggest(t, ctx, o.state, o.seat, l)
			cancel()
			if ok, why := isRuleError(err, ""); !ok {
				r.errorf("%s: Suggest(%q) after the end returned %q: %s; want a RuleError", o.name, l, m, why)
			}
			if el := sw.elapsed(); el > s.c.SuggestDeadline+s.c.SuggestGrace {
				r.errorf("%s: Suggest(%q) after the end took %v", o.name, l, el)
				return
			}
		}
	}
}
