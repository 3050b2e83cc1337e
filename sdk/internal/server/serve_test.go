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

// oldSuggest is a variant written for an sdk whose Suggest took no seat.
type oldSuggest struct{ rulesOnly }

func (oldSuggest) Suggest(context.Context, sdk.State, sdk.Level) (sdk.Move, error) { return "", nil }

// oldRewind has a Rewind of another signature and no levels.
type oldRewind struct{ rulesOnly }

func (oldRewind) Rewind(sdk.State, int32) (sdk.State, sdk.View, error) { return nil, sdk.View{}, nil }

// TestWrongSignatureIsNamed: a method named as a capability's but of
// another signature stops the plugin at start with both signatures named,
// instead of the capability silently going missing; levels without
// Suggest name the signature wanted.
func TestWrongSignatureIsNamed(t *testing.T) {
	for _, c := range []struct {
		v    sdk.Variant
		want []string
	}{
		{oldSuggest{rulesOnly{counter{}}}, []string{
			"Suggest(context.Context, sdk.State, sdk.Level) (sdk.Move, error)",
			"want Suggest(ctx context.Context, s sdk.State, seat sdk.Seat, level sdk.Level) (sdk.Move, error)",
			"sdk.Suggester",
		}},
		{oldRewind{rulesOnly{counter{}}}, []string{
			"Rewind(sdk.State, int32) (sdk.State, sdk.View, error)",
			"want Rewind(s sdk.State, ply int) (sdk.State, sdk.View, error)",
		}},
		{leveled{rulesOnly{counter{}}}, []string{
			"has no method Suggest(ctx context.Context, s sdk.State, seat sdk.Seat, level sdk.Level) (sdk.Move, error)",
		}},
	} {
		_, err := newRegistry([]sdk.Variant{c.v})
		if err == nil {
			t.Errorf("%T was registered", c.v)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%T: %v\ndoes not say %q", c.v, err, w)
			}
		}
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
