package engine

import (
	"context"
	"maps"
	"slices"

	"github.com/banmen/banmen/plugins/yonin/rules"
	"github.com/banmen/banmen/sdk"
)

// Variant is Yonin Shogi with this package's computer player: the rules of
// rules.Variant, and Suggest from here.
type Variant struct{ rules.Variant }

// The capabilities the plugin serves, checked at compile time: a method
// whose signature drifted from the sdk's would otherwise silently stop
// being the capability (docs/plugins.md, "Capability guards").
var (
	_ sdk.Variant         = Variant{}
	_ sdk.Suggester       = Variant{}
	_ sdk.Rewinder        = Variant{}
	_ sdk.LocalExporter   = Variant{}
	_ sdk.Perfter         = Variant{}
	_ sdk.Divider         = Variant{}
	_ sdk.PlayersExporter = Variant{} // embedded from rules
)

// Levels are the computer strengths this engine plays, weakest first: the
// rules alone list none, as they have no computer player.
var Levels = []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard}

// levelSetting is the host setting of the computer's level for the seats it
// plays in a room: the rules know no levels, so it is declared here.
var levelSetting = sdk.OptionSpec{
	Key: sdk.SettingLevel, Name: "Computer level", NameKey: "option.yonin.level",
	Type: "choice", Default: string(sdk.Medium), Choices: []string{string(sdk.Easy), string(sdk.Medium), string(sdk.Hard)},
}

// Describe is the rules' description with this engine's levels, and the
// host setting that chooses one.
func (v Variant) Describe() sdk.Description {
	d := v.Variant.Describe()
	d.Levels = Levels
	d.HostSettings = append(slices.Clip(d.HostSettings), levelSetting)
	return d
}

// Start is the rules' Start, which also accepts the computer's level as a
// host setting: the host applies it (it plays the computer seats), so
// nothing of it goes into the game.
func (v Variant) Start(opts sdk.Options) (sdk.State, sdk.View, error) {
	if l, ok := opts[sdk.SettingLevel]; ok {
		if _, err := sdk.ParseOptions([]sdk.OptionSpec{levelSetting}, sdk.Options{sdk.SettingLevel: l}); err != nil {
			return nil, sdk.View{}, err
		}
		opts = maps.Clone(opts)
		delete(opts, sdk.SettingLevel)
	}
	return v.Variant.Start(opts)
}

// Suggest returns the computer's move for seat at the level, before ctx's
// deadline. The computer plays whichever seat the rules put to move, a check
// priority answer out of the clockwise order included; any other seat is
// refused (not_your_turn), so a host never plays a move for the wrong seat.
func (Variant) Suggest(ctx context.Context, s sdk.State, seat sdk.Seat, level sdk.Level) (sdk.Move, error) {
	cfg, ok := levels[level]
	if !ok {
		return "", sdk.Errorf(sdk.CodeBadOption, "yonin has no level %q", sdk.Clip(string(level)))
	}
	g, err := rules.DecodeState(s)
	if err != nil {
		return "", err
	}
	if g.Over() {
		return "", sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	p := g.Position()
	if int(seat) != p.Turn() {
		return "", sdk.Errorf(sdk.CodeNotYourTurn, "seat %d is not to move (seat %d is)", seat, p.Turn())
	}
	moves := g.LegalMoves()
	if len(moves) == 0 {
		return "", sdk.Errorf(sdk.CodeNoMove, "no move to suggest")
	}
	m := Choose(ctx, g, cfg)
	return rules.MoveText(p.Turn(), m), nil
}
