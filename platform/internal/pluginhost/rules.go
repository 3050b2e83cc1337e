package pluginhost

import (
	"context"
	"time"

	"github.com/banmen/banmen/platform/internal/room"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
)

// Caller is what RoomRules needs of a Host (tests stand one in).
type Caller interface {
	Description(id string) (sdk.Description, bool)
	Call(ctx context.Context, variant, call string, fn func(ctx context.Context, c *host.Conn) error) error
}

// RoomRules is room.Rules (and room.ComputerRules) over the plugin
// processes of h: every call goes through h.Call, with its supervision,
// restart and retry. This is the one place the room's requests meet the
// sdk's calls.
func RoomRules(h Caller) room.Rules { return roomRules{h} }

type roomRules struct{ h Caller }

// The room finds the computer by a type assertion: a change of Suggest's
// signature must not turn computer seats off unnoticed.
var (
	_ room.Rules         = roomRules{}
	_ room.ComputerRules = roomRules{}
)

func (r roomRules) Describe(variant string) (sdk.Description, bool) { return r.h.Description(variant) }

func (r roomRules) Start(ctx context.Context, req room.StartRequest) (st sdk.State, v sdk.View, err error) {
	err = r.h.Call(ctx, req.Variant, "start", func(ctx context.Context, c *host.Conn) (err error) {
		st, v, err = c.Start(ctx, host.StartRequest{Variant: req.Variant, Options: req.Options})
		return err
	})
	return st, v, err
}

// Play asks for the View's History from req.HistoryFrom on only (the room
// holds the rest): at ply 160 of shogi that halves the bytes and the CPU
// of the call through the plugin.
func (r roomRules) Play(ctx context.Context, req room.PlayRequest) (st sdk.State, v sdk.View, err error) {
	err = r.h.Call(ctx, req.Variant, "play", func(ctx context.Context, c *host.Conn) (err error) {
		st, v, err = c.Play(ctx, host.PlayRequest{Variant: req.Variant, State: req.State, Seat: req.Seat, Move: req.Move, HistoryFrom: req.HistoryFrom})
		return err
	})
	return st, v, err
}

func (r roomRules) Rewind(ctx context.Context, req room.RewindRequest) (v sdk.View, err error) {
	err = r.h.Call(ctx, req.Variant, "rewind", func(ctx context.Context, c *host.Conn) (err error) {
		_, v, err = c.Rewind(ctx, host.RewindRequest{Variant: req.Variant, State: req.State, Ply: req.Ply})
		return err
	})
	return v, err
}

func (r roomRules) Export(ctx context.Context, req room.ExportRequest) (text string, err error) {
	err = r.h.Call(ctx, req.Variant, "export", func(ctx context.Context, c *host.Conn) (err error) {
		text, err = c.Export(ctx, host.ExportRequest{Variant: req.Variant, State: req.State, Format: req.Format, Lang: req.Lang, Players: req.Players})
		return err
	})
	return text, err
}

// Suggest is the computer's move for a computer seat, through the
// plugin's engine process (Call routes "suggest" there), so a search
// never delays a player's Play.
func (r roomRules) Suggest(ctx context.Context, req room.SuggestRequest) (move sdk.Move, err error) {
	err = r.h.Call(ctx, req.Variant, "suggest", func(ctx context.Context, c *host.Conn) (err error) {
		// The plugin gets the time less a margin for the trip back.
		pctx := ctx
		if d, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			pctx, cancel = context.WithDeadline(ctx, d.Add(-time.Until(d)/10))
			defer cancel()
		}
		move, err = c.Suggest(pctx, host.SuggestRequest{Variant: req.Variant, State: req.State, Seat: req.Seat, Level: req.Level})
		return err
	})
	return move, err
}
