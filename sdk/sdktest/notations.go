package sdktest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// testNotations exports games in every notation and imports them back.
func (s *suite) testNotations(t *testing.T) {
	r := &reporter{t: t}
	if _, err := s.callExport(t, s.start, "sdktest-no-such-format"); !okRule(err, sdk.CodeBadFormat) {
		r.errorf("Export in an unknown format: %v; want a RuleError %q", err, sdk.CodeBadFormat)
	}
	if _, _, err := s.callImport(t, "sdktest-no-such-format", "x"); !okRule(err, sdk.CodeBadFormat) {
		r.errorf("Import in an unknown format: %v; want a RuleError %q", err, sdk.CodeBadFormat)
	}
	cases := s.startPositions()
	for _, g := range s.games {
		for _, i := range []int{len(g.states) / 2, len(g.states) - 1} {
			cases = append(cases, position{fmt.Sprintf("%s ply %d", g.name, i), g.states[i], g.views[i]})
		}
	}
	for _, n := range s.d.Notations {
		for _, p := range cases {
			text, err := s.callExport(t, p.state, n.ID)
			if err != nil {
				r.errorf("%s: Export(%q): %v", p.name, n.ID, err)
				continue
			}
			if !n.Import {
				_, _, err := s.callImport(t, n.ID, text)
				if ok, why := isRuleError(err, ""); !ok {
					r.errorf("Import(%q), a format Describe marks as not importable: %s; want a RuleError", n.ID, why)
				}
				continue
			}
			ist, iv, err := s.callImport(t, n.ID, text)
			if err != nil {
				r.errorf("%s: Import(%q) of its own export failed: %v\n%s", p.name, n.ID, err, clip(text))
				continue
			}
			if err := CheckView(s.d, iv); err != nil {
				r.errorf("%s: view of Import(%q):\n%v", p.name, n.ID, err)
			}
			if iv.Position != p.view.Position || iv.Ply != p.view.Ply || iv.Status != p.view.Status ||
				!slices.Equal(historyMoves(iv), historyMoves(p.view)) {
				r.errorf("%s: Import(%q) of its export gives another game:\n\tgot  %s ply %d %s %v\n\twant %s ply %d %s %v\n%s",
					p.name, n.ID, iv.Position, iv.Ply, iv.Status, historyMoves(iv),
					p.view.Position, p.view.Ply, p.view.Status, historyMoves(p.view), clip(text))
			}
			if rv, err := s.callView(t, ist); err != nil {
				r.errorf("%s: View of the imported state: %v", p.name, err)
			} else if diff := diffViews(iv, rv); diff != "" {
				r.errorf("%s: View(state) differs from Import's view: %s", p.name, diff)
			}
		}
	}
}

func okRule(err error, code string) bool {
	ok, _ := isRuleError(err, code)
	return ok
}

func historyMoves(v sdk.View) []sdk.Move {
	out := make([]sdk.Move, len(v.History))
	for i, h := range v.History {
		out[i] = h.Move
	}
	return out
}

func (s *suite) testImportGarbage(t *testing.T) {
	r := &reporter{t: t}
	rnd := s.rand(500)
	texts := []string{"\x00", "\xff\xfe\xfd", "sdktest garbage \x00\x01\x02 ☃", garbageText(rnd, 64, false),
		garbageText(rnd, 4096, false), "\x01\x02\x03\x04\x05\x06\x07\x08"}
	for _, n := range s.d.Notations {
		if !n.Import {
			continue
		}
		for _, text := range texts {
			_, _, err := s.callImport(t, n.ID, text)
			if ok, why := isRuleError(err, ""); !ok {
				r.errorf("Import(%q, %q): %s; want a RuleError", n.ID, clip(text), why)
			}
		}
	}
}
