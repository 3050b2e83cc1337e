package engine

import (
	"context"

	"github.com/banmen/banmen/plugins/xiangqi/rules"
	"github.com/banmen/banmen/sdk"
)

// Variant is Xiangqi with this package's computer player: the rules of
// rules.Variant, and Suggest from here. The zero value plays with the
// built-in engine only.
type Variant struct {
	rules.Variant
	Player *Player
}

// The capabilities the plugin serves, checked at compile time: a method
// whose signature drifted from the sdk's would otherwise silently stop
// being the capability (docs/plugins.md, "Capability guards").
var (
	_ sdk.Variant         = Variant{}
	_ sdk.Suggester       = Variant{}
	_ sdk.Rewinder        = Variant{}
	_ sdk.Perfter         = Variant{}
	_ sdk.PlayersExporter = Variant{} // embedded from rules
)

// Levels are the computer strengths this engine plays, weakest first: the
// rules alone list none, as they have no computer player.
var Levels = []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard}

// Describe is the rules' description with this engine's levels.
func (v Variant) Describe() sdk.Description {
	d := v.Variant.Describe()
	d.Levels = Levels
	return d
}

// defaultPlayer serves Variants without their own Player.
var defaultPlayer = NewPlayer(Config{})

// NewVariant returns the variant with a player configured by cfg.
func NewVariant(cfg Config) Variant { return Variant{Player: NewPlayer(cfg)} }

// Suggest returns the computer's move for seat at the level, before ctx's
// deadline. Only the side to move has a move: any other seat is
// not_your_turn.
func (v Variant) Suggest(ctx context.Context, s sdk.State, seat sdk.Seat, level sdk.Level) (sdk.Move, error) {
	g, err := rules.DecodeState(s)
	if err != nil {
		return "", err
	}
	if _, ok := levels[level]; !ok {
		return "", sdk.Errorf(sdk.CodeBadOption, "xiangqi has no level %q", sdk.Clip(string(level)))
	}
	if g.Over() {
		return "", sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	if side := g.Position().Side(); seat != sdk.Seat(side) {
		return "", sdk.Errorf(sdk.CodeNotYourTurn, "seat %d is not to move (seat %d is)", seat, side)
	}
	p := v.Player
	if p == nil {
		p = defaultPlayer
	}
	m, err := p.Choose(ctx, g, level)
	if err != nil {
		return "", err
	}
	return sdk.Move(rules.UCCI(m)), nil
}
