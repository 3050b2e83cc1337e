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
