package server

import (
	"context"
	"reflect"
	"testing"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/channel"
	"github.com/banmen/banmen/sdk/internal/wire"
	"google.golang.org/protobuf/proto"
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

// TestLaneRepliesAreProtobufs: the channel's Play and View replies, which
// serve packs into pooled buffers and writes itself, are the frames
// protobuf makes of the answer as gRPC sends it, again and again from the
// same pool; a text that is not UTF-8 fails both the same way.
func TestLaneRepliesAreProtobufs(t *testing.T) {
	reg, err := newRegistry([]sdk.Variant{boarded{}, badText{}})
	if err != nil {
		t.Fatal(err)
	}
	s := &server{reg: reg}
	l := &Local{srv: s}
	for i := range 3 {
		for _, variant := range []string{"boarded", "badtext"} {
			play := &wire.PlayRequest{Variant: variant, State: sdk.State{byte(i)}, Move: "+", HistoryFrom: 1, Packed: true}
			view := &wire.ViewRequest{Variant: variant, State: sdk.State{byte(i)}, Packed: true}
			for _, c := range []struct {
				kind byte
				req  proto.Message
				call func() (*wire.GameResponse, error)
			}{
				{channel.CallPlay, play, func() (*wire.GameResponse, error) { return s.Play(context.Background(), play) }},
				{channel.CallView, view, func() (*wire.GameResponse, error) { return s.View(context.Background(), view) }},
			} {
				resp, err := c.call()
				var want []byte
				if err == nil {
					want, err = channel.AppendMux(nil, channel.ReplyOK, 7, resp, "")
				}
				if err != nil {
					want, _ = channel.AppendMux(nil, channel.ReplyFailed, 7, nil, err.Error())
				}
				body, _ := proto.Marshal(c.req)
				if got := l.Answer(nil, c.kind, 7, body); string(got) != string(want) {
					t.Errorf("%s call %d round %d:\n%q\nwant\n%q", variant, c.kind, i, got, want)
				}
			}
		}
	}
}

// badText is boarded with a legal move whose text is not UTF-8.
type badText struct{ boarded }

func (badText) Describe() sdk.Description { return sdk.Description{ID: "badtext"} }
func (badText) Play(s sdk.State, _ sdk.Seat, _ sdk.Move) (sdk.State, sdk.View, error) {
	v := boardView(int(s[0]) + 1)
	v.Legal[0].Text = "\xff"
	return sdk.State{s[0] + 1}, v, nil
}
func (badText) View(s sdk.State) (sdk.View, error) {
	v := boardView(int(s[0]))
	v.Legal[0].Text = "\xff"
	return v, nil
}
