package rules

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestCSAExport(t *testing.T) {
	g := gameFrom(t, StartSFEN, sampleMoves...)
	if err := g.play(g.pos.side, sdk.Resign); err != nil {
		t.Fatal(err)
	}
	text := g.exportCSA()
	for _, want := range []string{"V2.2\n", "PI\n+\n", "+7776FU\n-3334FU\n+8822UM\n-3122GI\n+0045KA\n", "+3443KA\n", "%TORYO\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("CSA lacks %q:\n%s", want, text)
		}
	}
}
