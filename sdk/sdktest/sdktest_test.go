package sdktest_test

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/examples/tictactoe"
	"github.com/banmen/banmen/sdk/sdktest"
)

func TestTicTacToe(t *testing.T) {
	sdktest.Run(t, tictactoe.Variant{})
}

// base is the sound variant the mutants break, one fault each.
type base = tictactoe.Variant

type alias struct{ base } // accepts "B2" for "b2"

func (v alias) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	return v.base.Play(s, seat, sdk.Move(strings.ToLower(string(m))))
}

type anySeat struct{ base } // lets any seat play for the seat to move

func (v anySeat) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	if view, err := v.base.View(s); err == nil && len(view.ToMove) > 0 && m != sdk.Resign {
		seat = view.ToMove[0]
	}
	return v.base.Play(s, seat, m)
}

type panicky struct{ base } // trusts short states

func (v panicky) View(s sdk.State) (sdk.View, error) {
	_ = s[4]
	return v.base.View(s)
}

type unsealed struct{ base } // keeps the payload without the envelope

func (unsealed) seal(s sdk.State, v sdk.View, err error) (sdk.State, sdk.View, error) {
	if err != nil {
		return s, v, err
	}
	_, p, err := sdk.OpenState(tictactoe.ID, s)
	return p, v, err
}

func (unsealed) open(s sdk.State) sdk.State { return sdk.SealState(tictactoe.ID, 1, s) }

func (v unsealed) Start(o sdk.Options) (sdk.State, sdk.View, error) { return v.seal(v.base.Start(o)) }
func (v unsealed) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	return v.seal(v.base.Play(v.open(s), seat, m))
}
func (v unsealed) View(s sdk.State) (sdk.View, error) { return v.base.View(v.open(s)) }
func (v unsealed) Export(s sdk.State, f string) (string, error) {
	return v.base.Export(v.open(s), f)
}
func (v unsealed) Import(f, text string) (sdk.State, sdk.View, error) {
	return v.seal(v.base.Import(f, text))
}
func (v unsealed) Suggest(ctx context.Context, s sdk.State, seat sdk.Seat, l sdk.Level) (sdk.Move, error) {
	return v.base.Suggest(ctx, v.open(s), seat, l)
}

type plyOff struct{ base } // counts plies from one in Play only

func (v plyOff) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	st, view, err := v.base.Play(s, seat, m)
	view.Ply++
	return st, view, err
}

type slowSuggest struct{ base } // ignores the deadline

func (v slowSuggest) Suggest(ctx context.Context, s sdk.State, seat sdk.Seat, l sdk.Level) (sdk.Move, error) {
	if _, err := v.base.View(s); err == nil {
		time.Sleep(600 * time.Millisecond)
	}
	return v.base.Suggest(ctx, s, seat, l)
}

type offBoard struct{ base } // suggests a move that does not exist

func (offBoard) Suggest(context.Context, sdk.State, sdk.Seat, sdk.Level) (sdk.Move, error) {
	return "d4", nil
}

type suggestAnySeat struct{ base } // answers for the seat to move whatever seat it is asked for

func (v suggestAnySeat) Suggest(ctx context.Context, s sdk.State, seat sdk.Seat, l sdk.Level) (sdk.Move, error) {
	if view, err := v.base.View(s); err == nil && len(view.ToMove) > 0 {
		seat = view.ToMove[0]
	}
	return v.base.Suggest(ctx, s, seat, l)
}

type perftOff struct{ base } // miscounts deeper trees

func (v perftOff) Perft(ctx context.Context, pos string, depth int) (uint64, error) {
	n, err := v.base.Perft(ctx, pos, depth)
	if depth >= 3 {
		n++
	}
	return n, err
}

type perftPanics struct{ base } // trusts its position text

func (v perftPanics) Perft(ctx context.Context, pos string, depth int) (uint64, error) {
	if pos != "" {
		panic("perft: " + pos)
	}
	return v.base.Perft(ctx, pos, depth)
}

type overIllegal struct{ base } // says illegal_move, not game_over, after the end

func (v overIllegal) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	if view, err := v.base.View(s); err == nil && view.Status == sdk.Over {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeIllegalMove, "no")
	}
	return v.base.Play(s, seat, m)
}

type lossyImport struct{ base } // imports every game as the start

func (v lossyImport) Import(f, text string) (sdk.State, sdk.View, error) {
	if _, _, err := v.base.Import(f, text); err != nil {
		return nil, sdk.View{}, err
	}
	return v.base.Start(nil)
}

type lenientImport struct{ base } // imports garbage as the start

func (v lenientImport) Import(f, text string) (sdk.State, sdk.View, error) {
	if f == "moves" && strings.ContainsAny(text, "\x00\x01\xff") {
		return v.base.Start(nil)
	}
	return v.base.Import(f, text)
}

type upperText struct{ base } // lists "B2" but records "b2"

func (v upperText) fix(s sdk.State, view sdk.View, err error) (sdk.State, sdk.View, error) {
	for i := range view.Legal {
		view.Legal[i].Text = strings.ToUpper(view.Legal[i].Text)
	}
	return s, view, err
}

func (v upperText) Start(o sdk.Options) (sdk.State, sdk.View, error) { return v.fix(v.base.Start(o)) }
func (v upperText) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	return v.fix(v.base.Play(s, seat, m))
}
func (v upperText) View(s sdk.State) (sdk.View, error) {
	view, err := v.base.View(s)
	_, view, err = v.fix(nil, view, err)
	return view, err
}

type scribbler struct{ base } // writes into the state it is given

func (v scribbler) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	st, view, err := v.base.Play(s, seat, m)
	if err == nil && len(s) > 0 {
		s[len(s)-1]++
	}
	return st, view, err
}

type noResign struct{ base } // offers resigning but refuses it

func (v noResign) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	if m == sdk.Resign {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeIllegalMove, "no")
	}
	return v.base.Play(s, seat, m)
}

type abandonAsResign struct{ base } // says Abandon but records a resignation

func (v abandonAsResign) Describe() sdk.Description {
	d := v.base.Describe()
	d.Abandon = true
	return d
}

func (v abandonAsResign) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	if m == sdk.Abandon {
		m = sdk.Resign
	}
	return v.base.Play(s, seat, m)
}

type noRulesVersion struct{ base } // describes no rules version

func (v noRulesVersion) Describe() sdk.Description {
	d := v.base.Describe()
	d.RulesVersion = ""
	return d
}

// hostClock is tic-tac-toe with a host clock and computer level: it declares
// both, accepts them in Start and leaves them to the host. A sound variant.
type hostClock struct{ base }

func (v hostClock) Describe() sdk.Description {
	d := v.base.Describe()
	d.HostSettings = []sdk.OptionSpec{
		{Key: sdk.SettingMoveTime, Name: "Time per move", NameKey: "option.tictactoe.move_time", Type: "choice", Default: "0", Choices: []string{"0", "30"}},
		{Key: sdk.SettingLevel, Name: "Computer level", NameKey: "option.tictactoe.level", Type: "choice", Default: "easy", Choices: []string{"easy", "hard"}},
	}
	// English texts for the settings too, from the names above.
	en := maps.Clone(d.Texts["en"])
	maps.Copy(en, d.Keys())
	d.Texts = sdk.Texts{"en": en}
	return d
}

type noTexts struct{ base } // ships no texts: its results would show as raw keys

func (v noTexts) Describe() sdk.Description {
	d := v.base.Describe()
	d.Texts = nil
	return d
}

func (v hostClock) Start(o sdk.Options) (sdk.State, sdk.View, error) {
	d := v.Describe()
	rest := sdk.Options{}
	for k, val := range o {
		spec, ok := d.HostSetting(k)
		if !ok {
			rest[k] = val
			continue
		}
		if _, err := sdk.ParseOptions([]sdk.OptionSpec{spec}, sdk.Options{k: val}); err != nil {
			return nil, sdk.View{}, err
		}
	}
	return v.base.Start(rest)
}

func TestVariantWithHostSettings(t *testing.T) { sdktest.Run(t, hostClock{}) }

type hostAnything struct{ base } // accepts every host setting, declared or not

func (v hostAnything) Start(o sdk.Options) (sdk.State, sdk.View, error) {
	rest := sdk.Options{}
	for k, val := range o {
		if !strings.HasPrefix(k, sdk.HostSettingPrefix) {
			rest[k] = val
		}
	}
	return v.base.Start(rest)
}

type hostRefused struct{ base } // declares a clock that Start refuses

func (v hostRefused) Describe() sdk.Description { return hostClock(v).Describe() }

type firstSeatIgnored struct{ base } // declares a first seat and ignores it

func (v firstSeatIgnored) Describe() sdk.Description {
	d := v.base.Describe()
	d.HostSettings = []sdk.OptionSpec{{Key: sdk.SettingFirstSeat, Name: "First seat", NameKey: "option.tictactoe.first_seat", Type: "int", Default: "0", Min: 0, Max: 1}}
	d.Texts = nil
	return d
}

func (v firstSeatIgnored) Start(o sdk.Options) (sdk.State, sdk.View, error) {
	if n := o[sdk.SettingFirstSeat]; n == "0" || n == "1" {
		o = sdk.Options{}
	}
	return v.base.Start(o)
}

type ownHostKey struct{ base } // invents a host setting of its own

func (v ownHostKey) Describe() sdk.Description {
	d := v.base.Describe()
	d.HostSettings = []sdk.OptionSpec{{Key: "host.colour", Name: "Colour", NameKey: "option.tictactoe.colour", Type: "bool", Default: "false"}}
	return d
}

type anyOption struct{ base } // ignores unknown options

func (v anyOption) Start(sdk.Options) (sdk.State, sdk.View, error) { return v.base.Start(nil) }

// noSuggest lists levels but has no computer player: only the methods of
// sdk.Variant are promoted from the embedded interface.
type noSuggest struct{ sdk.Variant }

// noComputer is tic-tac-toe without levels or Suggest: a sound variant that
// offers no computer games.
type noComputer struct{ sdk.Variant }

func (v noComputer) Describe() sdk.Description {
	d := v.Variant.Describe()
	d.Levels = nil
	return d
}

func TestVariantWithoutComputer(t *testing.T) {
	if _, ok := sdk.Variant(noComputer{base{}}).(sdk.Suggester); ok {
		t.Fatal("noComputer is a Suggester")
	}
	sdktest.Run(t, noComputer{base{}})
}

// mutants maps each broken variant to the subtest that must catch it.
var mutants = map[string]struct {
	v       sdk.Variant
	subtest string
}{
	"alias":            {alias{}, "reject"},
	"anySeat":          {anySeat{}, "seats"},
	"panicky":          {panicky{}, "hostile_state"},
	"unsealed":         {unsealed{}, "hostile_state"},
	"plyOff":           {plyOff{}, "games"},
	"slowSuggest":      {slowSuggest{}, "suggest"},
	"offBoard":         {offBoard{}, "suggest"},
	"suggestAnySeat":   {suggestAnySeat{}, "suggest"},
	"perftOff":         {perftOff{}, "perft"},
	"perftPanics":      {perftPanics{}, "perft"},
	"overIllegal":      {overIllegal{}, "over"},
	"lossyImport":      {lossyImport{}, "notations"},
	"lenientImport":    {lenientImport{}, "import_garbage"},
	"upperText":        {upperText{}, "games"},
	"scribbler":        {scribbler{}, "games"},
	"noResign":         {noResign{}, "resign"},
	"abandonAsResign":  {abandonAsResign{}, "abandon"},
	"anyOption":        {anyOption{}, "options"},
	"noRulesVersion":   {noRulesVersion{}, "describe"},
	"hostAnything":     {hostAnything{}, "options"},
	"hostRefused":      {hostRefused{}, "options"},
	"firstSeatIgnored": {firstSeatIgnored{}, "options"},
	"ownHostKey":       {ownHostKey{}, "describe"},
	"noSuggest":        {noSuggest{base{}}, "suggest"},
	"noTexts":          {noTexts{}, "texts"},
}

// TestMutant runs the suite on the mutant named by $SDKTEST_MUTANT; it is
// meant to fail, in a child process of TestSuiteCatchesMutants.
func TestMutant(t *testing.T) {
	name := os.Getenv("SDKTEST_MUTANT")
	if name == "" {
		t.Skip("run by TestSuiteCatchesMutants")
	}
	sdktest.RunWith(t, mutants[name].v, sdktest.Config{SuggestDeadline: 200 * time.Millisecond})
}

// TestSuiteCatchesMutants proves that the suite can fail: every mutant must
// fail it, in the subtest meant to catch its fault.
func TestSuiteCatchesMutants(t *testing.T) {
	if os.Getenv("SDKTEST_MUTANT") != "" {
		t.Skip("inside a mutant run")
	}
	for name, m := range mutants {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMutant$", "-test.v", "-test.short")
			cmd.Env = append(os.Environ(), "SDKTEST_MUTANT="+name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passes a variant that is broken (%s)", name)
			}
			if !strings.Contains(string(out), "--- FAIL: TestMutant/"+m.subtest+" ") {
				t.Errorf("subtest %s did not fail; output:\n%s", m.subtest, out)
			}
		})
	}
}

// TestCheckTexts: the texts checks catch a Description key without English,
// a key English lacks, other placeholders, an empty text and a site key.
func TestCheckTexts(t *testing.T) {
	d := tictactoe.Variant{}.Describe()
	if err := sdktest.CheckTexts(d); err != nil {
		t.Fatalf("the template's texts: %v", err)
	}
	en := maps.Clone(d.Texts["en"])
	delete(en, "seat.tictactoe.o")
	en["result.x"] = "{seat} won"
	en["ui.newGame"] = "mine"
	de := map[string]string{"result.x": "{wer} gewann", "extra.key": "x", "variant.tictactoe": " "}
	d.Texts = sdk.Texts{"en": en, "de": de}
	err := sdktest.CheckTexts(d)
	for _, want := range []string{`no text for "seat.tictactoe.o"`, `"result.x" has placeholders`, `"extra.key", which English lacks`, `"variant.tictactoe" is empty`, `"ui.newGame" is one of the site's own keys`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckTexts: %v, want %q", err, want)
		}
	}
	if err := sdktest.CheckTextsComplete(d, "en", "de"); err == nil || !strings.Contains(err.Error(), `texts de: no text for "piece.tictactoe.x"`) {
		t.Errorf("CheckTextsComplete: %v", err)
	}
}

// TestPluginAtPath runs the suite across the plugin executable named by
// $BANMEN_PLUGIN, from any module or language:
//
//	BANMEN_PLUGIN=./bin/plugins/mygame go test github.com/banmen/banmen/sdk/sdktest -run TestPluginAtPath
//
// BANMEN_PLUGIN_GRPC_ONLY=1 accepts a plugin without the quick channel.
func TestPluginAtPath(t *testing.T) {
	path := os.Getenv("BANMEN_PLUGIN")
	if path == "" {
		t.Skip("BANMEN_PLUGIN names no plugin executable")
	}
	sdktest.RunPlugin(t, path, sdktest.Config{GRPCOnly: os.Getenv("BANMEN_PLUGIN_GRPC_ONLY") == "1"})
}
