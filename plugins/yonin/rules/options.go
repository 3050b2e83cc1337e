package rules

import (
	"slices"
	"strconv"

	"github.com/banmen/banmen/sdk"
)

// maxMoveLimit is the largest move limit a game may set.
const maxMoveLimit = 10000

// optionSpecs is the options schema of Describe, defaults included (SPEC §4
// settings table).
var optionSpecs = []sdk.OptionSpec{
	{Key: "format", Name: "Format", NameKey: "option.yonin.format", Type: "choice", Default: "singles", Choices: []string{"singles", "pairs"}},
	{Key: "ending", Name: "Ending", NameKey: "option.yonin.ending", Type: "choice", Default: "two_mates", Choices: []string{"two_mates", "last_player"}},
	{Key: "mated_pieces", Name: "Mated player's board pieces", NameKey: "option.yonin.mated_pieces", Type: "choice", Default: "mater", Choices: []string{"mater", "ownerless"}},
	{Key: "move_limit", Name: "Move limit", NameKey: "option.yonin.move_limit", Type: "int", Default: "0", Min: 0, Max: maxMoveLimit, None: "0"},
	{Key: "show_legal", Name: "Show legal moves", NameKey: "option.yonin.show_legal", Type: "bool", Default: "true"},
	{Key: "first_seat", Name: "First seat", NameKey: "option.yonin.first_seat", Type: "int", Default: "0", Min: 0, Max: 3, Seat: true},
}

// hostSettings are the host settings Yonin supports (SPEC §4: time per move,
// rotate first player, the number of players, the rest played by the
// computer). The first seat is a rule, the same as the first_seat option, so
// that a host can start a new round with the next seat without knowing
// Yonin's own option names; the others are the host's to apply, and are
// kept in the state only to show in View.Details.
var hostSettings = []sdk.OptionSpec{
	{Key: sdk.SettingFirstSeat, Name: "First seat", NameKey: "option.yonin.first_seat", Type: "int", Default: "0", Min: 0, Max: 3, Seat: true},
	{Key: sdk.SettingRotateFirst, Name: "Rotate first player", NameKey: "option.yonin.rotate_first", Type: "bool", Default: "true"},
	{Key: sdk.SettingMoveTime, Name: "Time per move", NameKey: "option.yonin.time_per_move", Type: "choice", Default: "0", Choices: []string{"0", "30", "60"}},
	{Key: sdk.SettingHumanSeats, Name: "Players", NameKey: "option.yonin.players", Type: "int", Default: "4", Min: 1, Max: 4},
}

// allSpecs is every key Start reads: the options, then the host settings.
var allSpecs = slices.Concat(optionSpecs, hostSettings)

// settings are a game's options, typed. Rules go into the position text; the
// rest is carried for the host and the UI.
type settings struct {
	rules       Rules
	showLegal   bool
	rotateFirst bool
	firstSeat   int
	timePerMove int // seconds, 0 for none
	players     int
}

func defaultSettings() settings {
	return settings{showLegal: true, rotateFirst: true, players: 4}
}

// parseOptions reads and checks options and host settings; missing keys
// take their defaults. The first seat may be given by either key, and both
// must then agree.
func parseOptions(opts sdk.Options) (settings, error) {
	o, err := sdk.ParseOptions(allSpecs, opts)
	if err != nil {
		return defaultSettings(), err
	}
	first := o.Int("first_seat")
	if _, ok := opts[sdk.SettingFirstSeat]; ok {
		if _, own := opts["first_seat"]; own && first != o.Int(sdk.SettingFirstSeat) {
			return defaultSettings(), sdk.Errorf(sdk.CodeBadOption, "first_seat %d and %s %d disagree", first, sdk.SettingFirstSeat, o.Int(sdk.SettingFirstSeat))
		}
		first = o.Int(sdk.SettingFirstSeat)
	}
	return settings{
		rules: Rules{
			Pairs:      o.Text("format") == "pairs",
			LastPlayer: o.Text("ending") == "last_player",
			Ownerless:  o.Text("mated_pieces") == "ownerless",
			Limit:      o.Int("move_limit"),
		},
		showLegal:   o.Bool("show_legal"),
		rotateFirst: o.Bool(sdk.SettingRotateFirst),
		firstSeat:   first,
		timePerMove: o.Int(sdk.SettingMoveTime),
		players:     o.Int(sdk.SettingHumanSeats),
	}, nil
}

// details are the option values in force, for the UI (View.Details).
func (s settings) details() []sdk.KeyValue {
	choice := func(b bool, yes, no string) string {
		if b {
			return yes
		}
		return no
	}
	return []sdk.KeyValue{
		{Key: "format", Value: choice(s.rules.Pairs, "pairs", "singles")},
		{Key: "ending", Value: choice(s.rules.LastPlayer, "last_player", "two_mates")},
		{Key: "mated_pieces", Value: choice(s.rules.Ownerless, "ownerless", "mater")},
		{Key: "move_limit", Value: strconv.Itoa(s.rules.Limit)},
		{Key: "show_legal", Value: strconv.FormatBool(s.showLegal)},
		{Key: "first_seat", Value: strconv.Itoa(s.firstSeat)},
		{Key: sdk.SettingRotateFirst, Value: strconv.FormatBool(s.rotateFirst)},
		{Key: sdk.SettingMoveTime, Value: strconv.Itoa(s.timePerMove)},
		{Key: sdk.SettingHumanSeats, Value: strconv.Itoa(s.players)},
	}
}
