package sdktest

import (
	"testing"

	"github.com/banmen/banmen/sdk"
)

// testRewind checks an sdk.Rewinder: Rewind of a game's last state to any
// earlier ply gives the View Play returned at that ply, a State whose View
// is that View too (so a takeback can play on from it), and CodeBadPly for a
// ply the game does not have.
func (s *suite) testRewind(t *testing.T) {
	rw, ok := s.v.(sdk.Rewinder)
	if !ok {
		t.Skip("not an sdk.Rewinder")
	}
	call := func(st sdk.State, ply int) (ns sdk.State, v sdk.View, err error) {
		if perr := protect(t, "Rewind", func() { ns, v, err = rw.Rewind(st, ply) }); perr != nil {
			err = perr
		}
		return ns, v, err
	}
	if _, _, err := call(s.start, 0); okRule(err, sdk.CodeUnsupported) && !s.d.Rewind {
		t.Skip("the plugin does not rewind (Description.Rewind is false)")
	}
	for _, g := range s.games {
		last := len(g.states) - 1
		for _, ply := range []int{0, last / 3, last / 2, last - 1, last} {
			if ply < 0 {
				continue
			}
			ns, v, err := call(g.states[last], ply)
			if err != nil {
				t.Errorf("%s: Rewind to ply %d of %d: %v", g.name, ply, last, err)
				continue
			}
			if diff := diffViews(g.views[ply], v); diff != "" {
				t.Errorf("%s: Rewind to ply %d differs from the View Play returned then: %s", g.name, ply, diff)
			}
			rv, err := s.callView(t, ns)
			if err != nil {
				t.Errorf("%s: View of the State Rewind(%d) returned: %v", g.name, ply, err)
			} else if diff := diffViews(v, rv); diff != "" {
				t.Errorf("%s: View of the State Rewind(%d) returned differs from its View: %s", g.name, ply, diff)
			}
		}
		for _, ply := range []int{-1, last + 1} {
			if _, _, err := call(g.states[last], ply); !okRule(err, sdk.CodeBadPly) {
				t.Errorf("%s: Rewind to ply %d of a %d-ply game: %v, want a *RuleError %s", g.name, ply, last, err, sdk.CodeBadPly)
			}
		}
	}
}
