package server

import (
	"context"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/wire"
)

// rulesOnly is the counter without its computer player; leveled claims
// levels all the same.
type (
	rulesOnly struct{ sdk.Variant }
	leveled   struct{ rulesOnly }
)

func (leveled) Describe() sdk.Description {
	return sdk.Description{ID: "leveled", Levels: []sdk.Level{sdk.Easy}}
}

func TestSuggestIsACapability(t *testing.T) {
	if _, err := newRegistry([]sdk.Variant{leveled{rulesOnly{counter{}}}}); err == nil ||
		!strings.Contains(err.Error(), "Suggester") {
		t.Fatalf("a variant listing levels without Suggest was registered: %v", err)
	}
	reg, err := newRegistry([]sdk.Variant{rulesOnly{counter{}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := (&server{reg: reg}).Suggest(context.Background(), &wire.SuggestRequest{Variant: "counter", State: sdk.State{0}, Level: "easy"})
	if err != nil || r.Error == nil || r.Error.Code != sdk.CodeUnsupported {
		t.Fatalf("Suggest on a variant without a computer: %v %v, want the rule error %s", r, err, sdk.CodeUnsupported)
	}
	reg, _ = newRegistry([]sdk.Variant{counter{}})
	r, err = (&server{reg: reg}).Suggest(context.Background(), &wire.SuggestRequest{Variant: "counter", State: sdk.State{0}, Seat: 2, Level: "easy"})
	if err != nil || r.Error != nil || r.Move != "+" {
		t.Fatalf("Suggest on a Suggester for the seat to move: %v %v", r, err)
	}
	r, err = (&server{reg: reg}).Suggest(context.Background(), &wire.SuggestRequest{Variant: "counter", State: sdk.State{0}, Seat: 1, Level: "easy"})
	if err != nil || r.Error == nil || r.Error.Code != sdk.CodeNotYourTurn {
		t.Fatalf("Suggest for a seat not to move: %v %v, want not_your_turn", r, err)
	}
}

// TestDescribeShowsTheRulesVersion: the by-hand describe prints what the
// host reads, the rules version included.
func TestDescribeShowsTheRulesVersion(t *testing.T) {
	reg, err := newRegistry([]sdk.Variant{counter{}})
	if err != nil {
		t.Fatal(err)
	}
	var out, errs strings.Builder
	if code := runCLI(reg, []string{"describe"}, &out, &errs); code != 0 {
		t.Fatalf("describe exited %d: %s", code, errs.String())
	}
	if !strings.Contains(out.String(), `"rulesVersion": "7"`) {
		t.Errorf("describe printed no rules version:\n%s", out.String())
	}
}
