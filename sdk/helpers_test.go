package sdk_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/banmen/banmen/sdk"
)

func TestClip(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"7g7f", "7g7f"},
		{strings.Repeat("x", 40), strings.Repeat("x", 40)},
		{strings.Repeat("x", 41), strings.Repeat("x", 40) + "…"},
		// 13 three-byte characters are 39 bytes: the 14th would cut at 40
		// in the middle of itself, so it goes whole.
		{strings.Repeat("歩", 20), strings.Repeat("歩", 13) + "…"},
	} {
		got := sdk.Clip(c.in)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("Clip(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

var specs = []sdk.OptionSpec{
	{Key: "pairs", Type: "bool", Default: "false"},
	{Key: "limit", Type: "int", Default: "0", Min: 0, Max: 100},
	{Key: "ending", Type: "choice", Default: "mate", Choices: []string{"mate", "last"}},
}

func TestParseOptions(t *testing.T) {
	o, err := sdk.ParseOptions(specs, nil)
	if err != nil || o.Bool("pairs") || o.Int("limit") != 0 || o.Text("ending") != "mate" {
		t.Fatalf("defaults: %v %v", o, err)
	}
	o, err = sdk.ParseOptions(specs, sdk.Options{"pairs": "true", "limit": "100", "ending": "last"})
	if err != nil || !o.Bool("pairs") || o.Int("limit") != 100 || o.Text("ending") != "last" {
		t.Fatalf("values: %v %v", o, err)
	}
	for _, bad := range []sdk.Options{
		{"nope": "1"},
		{"pairs": "yes"},
		{"pairs": ""},
		{"limit": "101"},
		{"limit": "-1"},
		{"limit": "1.5"},
		{"limit": " 1"},
		{"ending": "Mate"},
		{"nope": strings.Repeat("x", 1<<20)},
		{strings.Repeat("k", 1<<20): "1"},
	} {
		_, err := sdk.ParseOptions(specs, bad)
		re, ok := sdk.AsRuleError(err)
		if !ok || re.Code != sdk.CodeBadOption {
			t.Errorf("%.40v: error %v, want %s", bad, err, sdk.CodeBadOption)
			continue
		}
		if len(re.Message) > 200 {
			t.Errorf("the error quotes the hostile text whole (%d bytes)", len(re.Message))
		}
	}
	// No schema: every key is unknown; several wrong keys name the first.
	_, err = sdk.ParseOptions(nil, sdk.Options{"b": "1", "a": "1", "c": "1"})
	if re, ok := sdk.AsRuleError(err); !ok || re.Code != sdk.CodeBadOption || !strings.Contains(re.Message, `"a"`) {
		t.Errorf("unknown keys: %v", err)
	}
}

func TestFormats(t *testing.T) {
	f := sdk.Formats[int]{"kif": 1, "csa": 2}
	if n, err := f.Get("csa"); n != 2 || err != nil {
		t.Errorf("Get(csa) = %d, %v", n, err)
	}
	for _, bad := range []string{"", "KIF", "pgn", strings.Repeat("k", 1<<20)} {
		_, err := f.Get(bad)
		re, ok := sdk.AsRuleError(err)
		if !ok || re.Code != sdk.CodeBadFormat || len(re.Message) > 100 {
			t.Errorf("Get(%.20q): %v, want a short %s", bad, err, sdk.CodeBadFormat)
		}
	}
}

func TestHostSettingKeys(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range sdk.HostSettingKeys() {
		if !strings.HasPrefix(k, sdk.HostSettingPrefix) || seen[k] {
			t.Errorf("host setting key %q: without the prefix %q, or repeated", k, sdk.HostSettingPrefix)
		}
		seen[k] = true
	}
	d := sdk.Description{HostSettings: []sdk.OptionSpec{{Key: sdk.SettingMoveTime, Default: "30"}}}
	if s, ok := d.HostSetting(sdk.SettingMoveTime); !ok || s.Default != "30" {
		t.Errorf("HostSetting(move time) = %+v, %v", s, ok)
	}
	if _, ok := d.HostSetting(sdk.SettingFirstSeat); ok {
		t.Error("HostSetting found a setting that is not declared")
	}
}
