package rules

import (
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
	{Key: "move_limit", Name: "Move limit", NameKey: "option.yonin.move_limit", Type: "int", Default: "0", Min: 0, Max: maxMoveLimit},
	{Key: "show_legal", Name: "Show legal moves", NameKey: "option.yonin.show_legal", Type: "bool", Default: "true"},
	{Key: "rotate_first", Name: "Rotate first player", NameKey: "option.yonin.rotate_first", Type: "bool", Default: "true", Host: true},
	{Key: "first_seat", Name: "First seat", NameKey: "option.yonin.first_seat", Type: "int", Default: "0", Min: 0, Max: 3},
	{Key: "time_per_move", Name: "Time per move", NameKey: "option.yonin.time_per_move", Type: "choice", Default: "none", Choices: []string{"none", "30", "60"}, Host: true},
	{Key: "players", Name: "Players", NameKey: "option.yonin.players", Type: "int", Default: "4", Min: 2, Max: 4, Host: true},
}

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

// parseOptions reads and checks options; missing keys take their defaults.
func parseOptions(opts sdk.Options) (settings, error) {
	o, err := sdk.ParseOptions(optionSpecs, opts)
	if err != nil {
		return defaultSettings(), err
	}
	tpm, _ := strconv.Atoi(o.Text("time_per_move")) // "none" is 0
	return settings{
		rules: Rules{
			Pairs:      o.Text("format") == "pairs",
			LastPlayer: o.Text("ending") == "last_player",
			Ownerless:  o.Text("mated_pieces") == "ownerless",
			Limit:      o.Int("move_limit"),
		},
		showLegal:   o.Bool("show_legal"),
		rotateFirst: o.Bool("rotate_first"),
		firstSeat:   o.Int("first_seat"),
		timePerMove: tpm,
		players:     o.Int("players"),
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
	tpm := "none"
	if s.timePerMove > 0 {
		tpm = strconv.Itoa(s.timePerMove)
	}
	return []sdk.KeyValue{
		{Key: "format", Value: choice(s.rules.Pairs, "pairs", "singles")},
		{Key: "ending", Value: choice(s.rules.LastPlayer, "last_player", "two_mates")},
		{Key: "mated_pieces", Value: choice(s.rules.Ownerless, "ownerless", "mater")},
		{Key: "move_limit", Value: strconv.Itoa(s.rules.Limit)},
		{Key: "show_legal", Value: strconv.FormatBool(s.showLegal)},
		{Key: "rotate_first", Value: strconv.FormatBool(s.rotateFirst)},
		{Key: "first_seat", Value: strconv.Itoa(s.firstSeat)},
		{Key: "time_per_move", Value: tpm},
		{Key: "players", Value: strconv.Itoa(s.players)},
	}
}
