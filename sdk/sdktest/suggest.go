package sdktest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
)

func (s *suite) testSuggest(t *testing.T) {
	if len(s.d.Levels) == 0 {
		if s.sg != nil {
			t.Skip("a Suggester that lists no levels: the site offers no computer games")
		}
		t.Skip("no levels, no computer player")
	}
	if s.sg == nil {
		t.Fatalf("Describe lists levels %v but the variant has no Suggest (sdk.Suggester)", s.d.Levels)
	}
	// The start, then one random position of each game in turn.
	positions := s.startPositions()
	for _, p := range s.positions(s.rand(600), 1) {
		if len(positions) >= s.c.SuggestPositions {
			break
		}
		positions = append(positions, p)
	}
	deadline := s.c.SuggestDeadline
	for _, l := range s.d.Levels {
		t.Run(string(l), func(t *testing.T) {
			r := &reporter{t: t}
			for _, p := range positions {
				for _, seat := range p.view.ToMove {
					if !s.suggestFor(t, r, p, seat, l) {
						return // the other positions would only wait as long
					}
				}
			}
		})
	}
	t.Run("seat_not_to_move", func(t *testing.T) {
		// The host names the seat a computer plays for: a seat that may
		// not move has no move, and answering with another seat's would
		// play it for the wrong player.
		r := &reporter{t: t}
		for _, p := range append(s.startPositions(), s.positions(s.rand(601), 2)...) {
			seats := []sdk.Seat{-1, sdk.Seat(s.seats)}
			for i := range s.seats {
				if !slices.Contains(p.view.ToMove, sdk.Seat(i)) {
					seats = append(seats, sdk.Seat(i))
				}
			}
			for _, seat := range seats {
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				m, err := s.callSuggest(t, ctx, p.state, seat, s.d.Levels[0])
				cancel()
				if ok, why := isRuleError(err, sdk.CodeNotYourTurn); !ok {
					r.errorf("%s: Suggest(seat %d) for a seat not to move (%v) returned %q: %s", p.name, seat, p.view.ToMove, m, why)
				}
			}
		}
	})
	t.Run("unknown_level", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		var seat sdk.Seat
		if s.startView != nil && len(s.startView.ToMove) > 0 {
			seat = s.startView.ToMove[0]
		}
		if m, err := s.callSuggest(t, ctx, s.start, seat, "sdktest-no-such-level"); !okRule(err, "") {
			t.Errorf("Suggest at an unknown level: move %q, error %v; want a RuleError", m, err)
		}
	})
}

// suggestFor asks for seat's move in p at level l, within the deadline and
// with a done context; it reports false when a call overran its deadline.
func (s *suite) suggestFor(t *testing.T, r *reporter, p position, seat sdk.Seat, l sdk.Level) bool {
	deadline, grace := s.c.SuggestDeadline, s.c.SuggestGrace
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	sw := s.stopwatch()
	m, err := s.callSuggest(t, ctx, p.state, seat, l)
	el := sw.elapsed()
	cancel()
	if el > deadline+grace {
		r.errorf("%s: Suggest(seat %d) took %v with a deadline of %v", p.name, seat, el, deadline)
		return false
	}
	if err != nil {
		r.errorf("%s: Suggest(seat %d): %v", p.name, seat, err)
		return true
	}
	s.checkSuggested(t, r, p, seat, m)

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
		m, err := s.callSuggest(t, ctx, p.state, seat, l)
		cancel()
		if el := sw.elapsed(); el > grace {
			r.errorf("%s: Suggest(seat %d) took %v with a done context", p.name, seat, el)
			return false
		}
		if err == nil {
			s.checkSuggested(t, r, p, seat, m)
		}
	}
	return true
}

func (s *suite) checkSuggested(t *testing.T, r *reporter, p position, seat sdk.Seat, m sdk.Move) {
	for _, lm := range p.view.Legal {
		if lm.Move == m && lm.Seat == seat {
			if _, _, err := s.callPlay(t, p.state, lm.Seat, m); err != nil {
				r.errorf("%s: suggested move %q is listed but Play rejects it: %v", p.name, m, err)
			}
			return
		}
	}
	r.errorf("%s: suggested move %q is not among the %d listed legal moves of seat %d", p.name, m, len(p.view.Legal), seat)
}
