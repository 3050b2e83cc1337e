package rules

import (
	"slices"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// Scenario tests of the SPEC §4 settings: pairs, ownerless pieces, the move
// limit, the last-player ending, the first seat and the option schema.

func TestPairsNoNewCheckOnPartner(t *testing.T) {
	pieces := "5i=Ks 4d=Rs 5e=Gn 9i=Kw 5a=Kn 1i=Ke 4f=Gw"
	g := startGame(t, layout(pieces, "s - - pairs,two_mates,mater 1"))
	if hasLegal(g, "S:4d5d") {
		t.Error("a move checking the partner is listed")
	}
	rejects(t, g, "S:4d5d", sdk.CodeIllegalMove)
	// Partners cannot take each other's pieces; opponents' pieces they can.
	if !hasLegal(g, "S:4d4f") {
		t.Errorf("captures: %v", legalTexts(g))
	}
	g = startGame(t, layout("5i=Ks 5h=Rs 5e=Gn 9i=Kw 5a=Kn 1i=Ke", "s - - pairs,two_mates,mater 1"))
	if hasLegal(g, "S:5h5e") || !hasLegal(g, "S:5h5f") {
		t.Errorf("rook moves: %v", legalTexts(g))
	}
	// In singles the same moves are fine.
	g = startGame(t, layout(pieces, "s - - "+singles))
	if !hasLegal(g, "S:4d5d") {
		t.Error("the check is missing in singles")
	}
}

func TestPairsTeamLosesOnFirstMate(t *testing.T) {
	g := startGame(t, layout("5i=Ks 8c=Gs 7c=Gs 9a=Kw 5a=Kn 1i=Ke", "s - - pairs,last_player,mater 1"))
	playAll(t, g, "S:7c7b")
	res := g.result()
	if res == nil || res.Reason != reasonTeamMate || !slices.Equal(res.Places, []int{1, 3, 1, 3}) ||
		!slices.Equal(res.Winners, []sdk.Seat{0, 2}) {
		t.Fatalf("result %+v", res)
	}
}

func TestOwnerlessPieces(t *testing.T) {
	pieces := "5i=Ks 2c=Gs 2h=Rs 9e=Kw 5a=Kn 1a=Ke 5e=Se 5f=Gs"
	g := startGame(t, layout(pieces, "s Re - singles,two_mates,ownerless 1"))
	playAll(t, g, "S:2c2b")
	v := g.view()
	if c := v.Board[sq("5e")]; c.Owner != sdk.NoSeat || c.Facing != 3 || c.Kind != "S" {
		t.Fatalf("East's silver after the mate: %+v", c)
	}
	if g.pos.hands[0][kindRook] != 1 {
		t.Error("the hand did not go to the mater")
	}
	if g.pos.attacked(sq("6d"), 1) {
		t.Error("an ownerless piece attacks")
	}
	for _, m := range g.legal() {
		if m.from() == sq("5e") {
			t.Error("an ownerless piece moves")
		}
	}
	playAll(t, g, "S:5f5e")
	if g.pos.hands[0][kindSilver] != 1 {
		t.Errorf("the ownerless silver was not taken into hand: %s", g.pos.Text())
	}
	if got := g.pos.Text(); got[:len("4Kn3~Ke")] != "4Kn3~Ke" {
		t.Errorf("text %s", got)
	}
}

func TestMoveLimit(t *testing.T) {
	pieces := "5i=Ks 5a=~Kn 9e=Kw 1e=Ke 5g=Ps 4g=Ps 7e=Pw 8f=Pw"
	g := startGame(t, layout(pieces, "s - ns singles,two_mates,mater,limit=2 1"))
	playAll(t, g, "S:5g5f")
	if g.end != "" {
		t.Fatal("ended after one move")
	}
	playAll(t, g, "W:7e6e")
	res := g.result()
	if res == nil || res.Reason != reasonMoveLimit || !slices.Equal(res.Places, []int{1, 2, 4, 3}) {
		t.Fatalf("result %+v", res)
	}
	// Pairs: a draw without places.
	g = startGame(t, layout("5i=Ks 5a=Kn 9e=Kw 1e=Ke 5g=Ps", "s - - pairs,two_mates,mater,limit=1 1"))
	playAll(t, g, "S:5g5f")
	if res := g.result(); res == nil || !res.Draw || res.Places != nil || res.Reason != reasonMoveLimit {
		t.Fatalf("pairs result %+v", res)
	}
}

func TestLastPlayerEnding(t *testing.T) {
	// With two mates the game goes on...
	pieces := "5i=Ks 2c=Gs 2h=Rs 9e=~Kw 5a=Kn 1a=Ke 5g=Pn"
	g := startGame(t, layout(pieces, "s - wn singles,last_player,mater 1"))
	playAll(t, g, "S:2c2b")
	if g.end != "" || g.pos.nmates != 2 {
		t.Fatalf("end %q after the second mate", g.end)
	}
	wantTurn(t, g, "S") // East's successor
	// ...and ends with the last player, places by order of elimination.
	g = startGame(t, layout("5i=Ks 2c=Gs 2h=Rs 9e=~Kw 5a=~Kn 1a=Ke", "s - wn,ns singles,last_player,mater 1"))
	playAll(t, g, "S:2c2b")
	res := g.result()
	if res == nil || res.Reason != reasonLastPlayer || !slices.Equal(res.Places, []int{1, 4, 3, 2}) {
		t.Fatalf("result %+v", res)
	}
}

func TestFirstSeatOption(t *testing.T) {
	// The rules' own key, and the sdk's that a host sets for a new round
	// without knowing Yonin's option names: the same rule.
	for _, opts := range []sdk.Options{
		{"first_seat": "2"},
		{sdk.SettingFirstSeat: "2"},
		{"first_seat": "2", sdk.SettingFirstSeat: "2"},
	} {
		_, v, err := Variant{}.Start(opts)
		if err != nil {
			t.Fatalf("%v: %v", opts, err)
		}
		if !slices.Equal(v.ToMove, []sdk.Seat{2}) || v.Legal[0].Seat != 2 {
			t.Errorf("%v: to move %v", opts, v.ToMove)
		}
		if !slices.Contains(v.Details, sdk.KeyValue{Key: "first_seat", Value: "2"}) {
			t.Errorf("%v: details %v", opts, v.Details)
		}
	}
	_, _, err := Variant{}.Start(sdk.Options{"first_seat": "1", sdk.SettingFirstSeat: "2"})
	if re, ok := sdk.AsRuleError(err); !ok || re.Code != sdk.CodeBadOption {
		t.Errorf("two first seats: %v, want bad_option", err)
	}
}

// TestHostSettingsDeclared: Yonin declares the host settings of a room
// (SPEC §4 and issue 14), and its former option names for them are gone.
func TestHostSettingsDeclared(t *testing.T) {
	d := Variant{}.Describe()
	for _, k := range []string{sdk.SettingFirstSeat, sdk.SettingRotateFirst, sdk.SettingMoveTime, sdk.SettingHumanSeats} {
		if _, ok := d.HostSetting(k); !ok {
			t.Errorf("no host setting %s in %v", k, d.HostSettings)
		}
	}
	if _, ok := d.HostSetting(sdk.SettingLevel); ok {
		t.Error("the rules, which have no computer player, declare its level")
	}
	for _, o := range d.Options {
		if o.Key == "rotate_first" || o.Key == "time_per_move" || o.Key == "players" {
			t.Errorf("option %q is a host setting now", o.Key)
		}
	}
	if mt, _ := d.HostSetting(sdk.SettingMoveTime); !slices.Equal(mt.Choices, []string{"0", "30", "60"}) || mt.Default != "0" {
		t.Errorf("time per move %+v, want none (0), 30 or 60 seconds", mt)
	}
}

func TestOptions(t *testing.T) {
	for _, c := range []struct {
		opts sdk.Options
		ok   bool
	}{
		{nil, true},
		{sdk.Options{"format": "pairs", "ending": "last_player", "mated_pieces": "ownerless", "move_limit": "200",
			"show_legal": "false", sdk.SettingRotateFirst: "false", "first_seat": "3", sdk.SettingMoveTime: "60", sdk.SettingHumanSeats: "2"}, true},
		{sdk.Options{sdk.SettingHumanSeats: "1", sdk.SettingMoveTime: "30"}, true},
		{sdk.Options{"format": "triples"}, false},
		{sdk.Options{"move_limit": "-1"}, false},
		{sdk.Options{"move_limit": "10001"}, false},
		{sdk.Options{"first_seat": "4"}, false},
		{sdk.Options{sdk.SettingHumanSeats: "0"}, false},
		{sdk.Options{sdk.SettingHumanSeats: "5"}, false},
		{sdk.Options{sdk.SettingMoveTime: "45"}, false},
		{sdk.Options{sdk.SettingMoveTime: "none"}, false},
		{sdk.Options{sdk.SettingLevel: "easy"}, false}, // the rules have no computer player
		{sdk.Options{"players": "2"}, false},           // a host setting now: host.human_seats
		{sdk.Options{"time_per_move": "30"}, false},
		{sdk.Options{"rotate_first": "false"}, false},
		{sdk.Options{"show_legal": "yes"}, false},
		{sdk.Options{"colour": "red"}, false},
	} {
		st, v, err := Variant{}.Start(c.opts)
		if c.ok != (err == nil) {
			t.Errorf("%v: %v", c.opts, err)
			continue
		}
		if err != nil {
			if re, ok := sdk.AsRuleError(err); !ok || re.Code != sdk.CodeBadOption {
				t.Errorf("%v: %v, want bad_option", c.opts, err)
			}
			continue
		}
		// The options survive the state and show in the details.
		v2, err := Variant{}.View(st)
		if err != nil || !slices.Equal(v.Details, v2.Details) {
			t.Errorf("%v: details %v then %v (%v)", c.opts, v.Details, v2.Details, err)
		}
		for k, val := range c.opts {
			if !slices.Contains(v.Details, sdk.KeyValue{Key: k, Value: val}) {
				t.Errorf("%v: %s=%s not in details %v", c.opts, k, val, v.Details)
			}
		}
	}
}

func TestNoResignation(t *testing.T) {
	st, _, _ := Variant{}.Start(nil)
	_, _, err := Variant{}.Play(st, 0, sdk.Resign)
	if re, ok := sdk.AsRuleError(err); !ok || re.Code != sdk.CodeUnsupported {
		t.Errorf("resign: %v", err)
	}
}

// The settings a state without options decodes to are the schema's defaults.
func TestDefaultSettingsAreTheSchemas(t *testing.T) {
	s, err := parseOptions(nil)
	if err != nil || s != defaultSettings() {
		t.Fatalf("parseOptions(nil) = %+v, %v; defaultSettings() = %+v", s, err, defaultSettings())
	}
}

// The "show legal moves" option reaches the View as the contract's HideLegal
// (which the board reads), through Start, Play and View. (A game record
// carries the rules only, so an imported game shows the legal moves.)
func TestShowLegalOption(t *testing.T) {
	for _, c := range []struct {
		opts sdk.Options
		hide bool
	}{
		{nil, false},
		{sdk.Options{"show_legal": "true"}, false},
		{sdk.Options{"show_legal": "false"}, true},
	} {
		st, v, err := Variant{}.Start(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if v.HideLegal != c.hide {
			t.Errorf("%v: Start's view has HideLegal %v", c.opts, v.HideLegal)
		}
		if len(v.Legal) == 0 {
			t.Errorf("%v: the legal moves must be listed even when hidden", c.opts)
		}
		st, v, err = Variant{}.Play(st, v.Legal[0].Seat, v.Legal[0].Move)
		if err != nil || v.HideLegal != c.hide {
			t.Errorf("%v: after a move HideLegal %v (%v)", c.opts, v.HideLegal, err)
		}
		if v, err := (Variant{}).View(st); err != nil || v.HideLegal != c.hide {
			t.Errorf("%v: View has HideLegal %v (%v)", c.opts, v.HideLegal, err)
		}
	}
}
