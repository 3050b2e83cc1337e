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

// hostileCase is a state the variant must survive.
type hostileCase struct {
	name  string
	state sdk.State
}

func (s *suite) testHostileState(t *testing.T) {
	rnd := s.rand(400)
	real := s.start
	for _, g := range s.games {
		if st := g.states[len(g.states)-1]; len(st) > len(real) {
			real = st
		}
	}
	version, payload, sealed := byte(1), []byte(real), false
	if ver, p, err := sdk.OpenState(s.d.ID, real); err == nil {
		version, payload, sealed = ver, p, true
	}

	cases := []hostileCase{{"nil", nil}, {"empty", sdk.State{}}}
	for _, n := range []int{1, 7, 16, 64, 1000} {
		cases = append(cases, hostileCase{fmt.Sprintf("%d random bytes", n), sdk.State(garbageText(rnd, n, false))})
	}
	for _, n := range sample(rnd, len(real), 48) {
		cases = append(cases, hostileCase{fmt.Sprintf("truncated to %d of %d bytes", n, len(real)), real[:n:n]})
	}
	for _, i := range sample(rnd, len(real), 48) {
		b := bytes.Clone(real)
		b[i] ^= byte(1 + rnd.IntN(255))
		cases = append(cases, hostileCase{fmt.Sprintf("byte %d of %d flipped", i, len(real)), b})
	}
	cases = append(cases,
		hostileCase{"one byte appended", append(bytes.Clone(real), 0)},
		hostileCase{"sealed for another variant", sdk.SealState("other", version, payload)},
		hostileCase{"sealed for no variant", sdk.SealState("", version, payload)},
	)
	start := s.startView.Legal[0]
	r := &reporter{t: t}
	for _, c := range cases {
		if r.done() {
			return
		}
		s.hostile(t, r, c, start, func(what string, err error) {
			if ok, why := isRuleError(err, sdk.CodeBadState); !ok {
				r.errorf("%s given a state %s: %s", what, c.name, why)
			}
		})
	}
	if !sealed {
		t.Logf("the state is not made with sdk.SealState; payload checks skipped")
		return
	}

	// Well-sealed payloads the variant did not write: it may reject them
	// (as bad_state) or accept them, but then it must describe a sound game.
	var inner []hostileCase
	for _, n := range []int{0, 1, 9, 100} {
		inner = append(inner, hostileCase{fmt.Sprintf("%d random payload bytes", n), sdk.State(garbageText(rnd, n, false))})
	}
	for _, n := range sample(rnd, len(payload), 24) {
		inner = append(inner, hostileCase{fmt.Sprintf("payload truncated to %d of %d bytes", n, len(payload)), payload[:n:n]})
	}
	for _, i := range sample(rnd, len(payload), 48) {
		b := bytes.Clone(payload)
		b[i] ^= byte(1 + rnd.IntN(255))
		inner = append(inner, hostileCase{fmt.Sprintf("payload byte %d of %d flipped", i, len(payload)), b})
	}
	for _, ic := range inner {
		ic.state = sdk.SealState(s.d.ID, version, ic.state)
		s.acceptedOrRejected(t, r, ic)
	}
	for _, ver := range []byte{0, version + 1, 255} {
		if ver != version {
			s.acceptedOrRejected(t, r, hostileCase{fmt.Sprintf("payload under version %d", ver), sdk.SealState(s.d.ID, ver, payload)})
		}
	}
}

// hostile gives the state of c to every method that takes a state and
// passes each error to check.
func (s *suite) hostile(t *testing.T, r *reporter, c hostileCase, m sdk.LegalMove, check func(what string, err error)) {
	_, err := s.callView(t, c.state)
	check("View", err)
	_, _, err = s.callPlay(t, c.state, m.Seat, m.Move)
	check(fmt.Sprintf("Play(%q)", m.Move), err)
	for _, n := range s.d.Notations {
		_, err := s.callExport(t, c.state, n.ID)
		check(fmt.Sprintf("Export(%q)", n.ID), err)
	}
	if len(s.d.Levels) > 0 && s.sg != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.c.SuggestDeadline)
		sw := s.stopwatch()
		_, err := s.callSuggest(t, ctx, c.state, m.Seat, s.d.Levels[0])
		cancel()
		check("Suggest", err)
		if el := sw.elapsed(); el > s.c.SuggestDeadline+s.c.SuggestGrace {
			r.errorf("Suggest given a state %s took %v", c.name, el)
		}
	}
}

func (s *suite) acceptedOrRejected(t *testing.T, r *reporter, c hostileCase) {
	if r.done() {
		return
	}
	v, err := s.callView(t, c.state)
	if err != nil {
		if ok, why := isRuleError(err, sdk.CodeBadState); !ok {
			r.errorf("View given a state whose %s: %s", c.name, why)
		}
		// Whatever View said, nothing else may panic or accept it.
		s.hostile(t, r, c, s.startView.Legal[0], func(what string, err error) {
			if err == nil {
				r.errorf("View rejects a state whose %s, but %s accepts it", c.name, what)
			}
		})
		return
	}
	if err := CheckView(s.d, v); err != nil {
		r.errorf("View accepts a state whose %s, and describes an unsound game:\n%v", c.name, err)
		return
	}
	for _, n := range s.d.Notations {
		if _, err := s.callExport(t, c.state, n.ID); err != nil {
			r.errorf("View accepts a state whose %s, but Export(%q) fails: %v", c.name, n.ID, err)
		}
	}
	if v.Status == sdk.Playing {
		m := v.Legal[0]
		if _, nv, err := s.callPlay(t, c.state, m.Seat, m.Move); err != nil {
			r.errorf("View accepts a state whose %s, but its listed move %q fails: %v", c.name, m.Move, err)
		} else if bad := s.checkTransition(v, m, nv); len(bad) > 0 {
			r.errorf("a state whose %s, after %q:\n%s", c.name, m.Move, joinLines(bad))
		}
	}
}

// sample returns up to n distinct ints in [0, size), always including the
// small ones and the last few, sorted.
func sample(r *rand.Rand, size, n int) []int {
	if size <= n {
		out := make([]int, size)
		for i := range out {
			out[i] = i
		}
		return out
	}
	set := map[int]bool{}
	for _, i := range []int{0, 1, 2, 3, size - 1, size - 2, size - 4, size - 5} {
		if i >= 0 && i < size {
			set[i] = true
		}
	}
	for len(set) < n {
		set[r.IntN(size)] = true
	}
	out := make([]int, 0, len(set))
	for i := range set {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}
