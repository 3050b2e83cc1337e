package rules

import (
	"testing"

	"github.com/banmen/banmen/sdk"
)

func FuzzStateBytes(f *testing.F) {
	st, _, _ := Variant{}.Start(nil)
	_, payload, _ := sdk.OpenState("yonin", st)
	f.Add(payload)
	for _, p := range samplePositions(5, 2) {
		g := newGame(defaultSettings(), p)
		g.set.rules = p.rules
		if p.turn >= 0 {
			for _, m := range g.legal()[:1] {
				g.play(int(p.turn), m)
			}
		}
		_, payload, _ := sdk.OpenState("yonin", g.encodeState())
		f.Add(payload)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		st := sdk.SealState("yonin", stateVersion, payload)
		g, err := replayState(st)
		if err != nil {
			if re, ok := sdk.AsRuleError(err); !ok || re.Code != sdk.CodeBadState {
				t.Fatalf("want bad_state, got %v", err)
			}
			return
		}
		v := g.view()
		again, err := replayState(g.encodeState())
		if err != nil {
			t.Fatalf("a re-encoded state is rejected: %v", err)
		}
		if v2 := again.view(); v2.Position != v.Position || v2.Ply != v.Ply || len(v2.Legal) != len(v.Legal) {
			t.Fatalf("re-encoding changed the game")
		}
	})
}
