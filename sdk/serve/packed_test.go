package serve

import (
	"context"
	"reflect"
	"testing"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/wire"
)

// boarded is the counter with a board and legal moves in its views.
type boarded struct{ counter }

func (boarded) Describe() sdk.Description { return sdk.Description{ID: "boarded"} }

func boardView(ply int) sdk.View {
	return sdk.View{Ply: ply, Status: sdk.Playing, ToMove: []sdk.Seat{0},
		Board: []sdk.Cell{{}, {Kind: "P", Owner: 1, Promoted: true}},
		Legal: []sdk.LegalMove{{Seat: 0, Kind: sdk.BoardMove, Move: "+", Text: "＋", From: 1, To: 0}}}
}

func (boarded) Start(sdk.Options) (sdk.State, sdk.View, error) {
	return sdk.State{0}, boardView(0), nil
}
func (boarded) Play(s sdk.State, _ sdk.Seat, _ sdk.Move) (sdk.State, sdk.View, error) {
	return sdk.State{s[0] + 1}, boardView(int(s[0]) + 1), nil
}
func (boarded) View(s sdk.State) (sdk.View, error) { return boardView(int(s[0])), nil }
func (boarded) Import(string, string) (sdk.State, sdk.View, error) {
	return sdk.State{0}, boardView(0), nil
}

// TestPackedOnlyWhenAsked: a request without the flag (an older host) gets
// the board and legal moves plain; with it, packed; and the host's reading
// of both is the same View.
func TestPackedOnlyWhenAsked(t *testing.T) {
	reg, err := newRegistry([]sdk.Variant{boarded{}})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{reg: reg}
	ctx := context.Background()
	calls := map[string]func(packed bool) (*wire.GameResponse, error){
		"start": func(p bool) (*wire.GameResponse, error) {
			return s.Start(ctx, &wire.StartRequest{Variant: "boarded", Packed: p})
		},
		"play": func(p bool) (*wire.GameResponse, error) {
			return s.Play(ctx, &wire.PlayRequest{Variant: "boarded", State: sdk.State{3}, Move: "+", Packed: p})
		},
		"view": func(p bool) (*wire.GameResponse, error) {
			return s.View(ctx, &wire.ViewRequest{Variant: "boarded", State: sdk.State{3}, Packed: p})
		},
		"import": func(p bool) (*wire.GameResponse, error) {
			return s.Import(ctx, &wire.ImportRequest{Variant: "boarded", Packed: p})
		},
	}
	for name, call := range calls {
		plain, err := call(false)
		if err != nil {
			t.Fatal(err)
		}
		packed, err := call(true)
		if err != nil {
			t.Fatal(err)
		}
		if len(plain.View.Board) == 0 || len(plain.View.Legal) == 0 || plain.View.PackedBoard != nil || plain.View.PackedLegal != nil {
			t.Errorf("%s without the flag: board and legal must be plain: %v", name, plain.View)
		}
		if len(packed.View.Board) != 0 || len(packed.View.Legal) != 0 || packed.View.PackedBoard == nil || packed.View.PackedLegal == nil {
			t.Errorf("%s with the flag: board and legal must be packed: %v", name, packed.View)
		}
		a, err := wire.ToView(plain.View)
		if err != nil {
			t.Fatal(err)
		}
		b, err := wire.ToView(packed.View)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: plain %+v and packed %+v read differently", name, a, b)
		}
	}
}
