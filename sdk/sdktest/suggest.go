package sdktest

import (
	"context"
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
	deadline, grace := s.c.SuggestDeadline, s.c.SuggestGrace
	for _, l := range s.d.Levels {
		t.Run(string(l), func(t *testing.T) {
			r := &reporter{t: t}
			for _, p := range positions {
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				sw := s.stopwatch()
				m, err := s.callSuggest(t, ctx, p.state, l)
				el := sw.elapsed()
				cancel()
				if el > deadline+grace {
					r.errorf("%s: Suggest took %v with a deadline of %v", p.name, el, deadline)
					return // the other positions would only wait as long
				}
				if err != nil {
					r.errorf("%s: Suggest: %v", p.name, err)
					continue
				}
				s.checkSuggested(t, r, p, m)

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
					m, err := s.callSuggest(t, ctx, p.state, l)
					cancel()
					if el := sw.elapsed(); el > grace {
						r.errorf("%s: Suggest took %v with a done context", p.name, el)
						return
					}
					if err == nil {
						s.checkSuggested(t, r, p, m)
					}
				}
			}
		})
	}
	t.Run("unknown_level", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		if m, err := s.callSuggest(t, ctx, s.start, "sdktest-no-such-level"); !okRule(err, "") {
			t.Errorf("Suggest at an unknown level: move %q, error %v; want a RuleError", m, err)
		}
	})
}

func (s *suite) checkSuggested(t *testing.T, r *reporter, p position, m sdk.Move) {
	for _, lm := range p.view.Legal {
		if lm.Move == m {
			if _, _, err := s.callPlay(t, p.state, lm.Seat, m); err != nil {
				r.errorf("%s: suggested move %q is listed but Play rejects it: %v", p.name, m, err)
			}
			return
		}
	}
	r.errorf("%s: suggested move %q is not among the %d listed legal moves", p.name, m, len(p.view.Legal))
}
