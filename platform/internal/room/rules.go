package room

import (
	"context"

	"github.com/banmen/banmen/sdk"
)

// Rules is what a room needs of the variants' rules. pluginhost.RoomRules
// implements it over the plugin processes (supervision, restart and retry
// included); tests run a variant in-process.
type Rules interface {
	Describe(variant string) (sdk.Description, bool)
	Start(ctx context.Context, req StartRequest) (sdk.State, sdk.View, error)
	// Play plays req.Move for req.Seat. The View's History holds only the
	// entries from req.HistoryFrom on: a room keeps every move it
	// confirmed, and asks for the new one only.
	Play(ctx context.Context, req PlayRequest) (sdk.State, sdk.View, error)
	// Rewind is the game of req.State as it was after its first req.Ply
	// moves (sdk.Rewinder; a variant without it refuses with
	// sdk.CodeUnsupported).
	Rewind(ctx context.Context, req RewindRequest) (sdk.View, error)
	// Export writes the game of req.State in req.Format, its headers in
	// req.Lang where the variant writes them so.
	Export(ctx context.Context, req ExportRequest) (string, error)
}

// StartRequest is a new game of Variant with Options.
type StartRequest struct {
	Variant string
	Options sdk.Options
}

// PlayRequest is one move of a game.
type PlayRequest struct {
	Variant string
	State   sdk.State
	Seat    sdk.Seat
	Move    sdk.Move
	// HistoryFrom is how many History entries the room holds already.
	HistoryFrom int
}

// RewindRequest asks for a game as it was after its first Ply moves.
type RewindRequest struct {
	Variant string
	State   sdk.State
	Ply     int
}

// ExportRequest asks for a game's record in Format.
type ExportRequest struct {
	Variant string
	State   sdk.State
	Format  string
	Lang    string
	// Players are the names the seats' players gave, by seat ("" for
	// none), or nil: data the plugin writes in its format's header.
	Players []string
}

// ComputerRules is Rules that can ask the variant's computer player for a
// move (the plugin's Suggest). The plugin host sends these calls to an
// engine process of their own, so that a search never delays a player's
// Play.
type ComputerRules interface {
	Suggest(ctx context.Context, req SuggestRequest) (sdk.Move, error)
}

// SuggestRequest asks for the computer's move for Seat at Level.
type SuggestRequest struct {
	Variant string
	State   sdk.State
	Seat    sdk.Seat
	Level   sdk.Level
}
