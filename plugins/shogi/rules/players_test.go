package rules

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// TestExportWithPlayers: the names go in KIF's and CSA's headers, as one
// line each, and the records still import.
func TestExportWithPlayers(t *testing.T) {
	v := Variant{}
	s, _, err := v.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, _, err = v.Play(s, 0, "7g7f"); err != nil {
		t.Fatal(err)
	}
	if s, _, err = v.Play(s, 1, sdk.Resign); err != nil {
		t.Fatal(err)
	}
	players := []string{"Taro\r\nN-Mallory", "花子"}
	for format, want := range map[string][]string{
		"kif": {"\n先手：TaroN-Mallory\n", "\n後手：花子\n"},
		"csa": {"\nN+TaroN-Mallory\n", "\nN-花子\n"},
	} {
		text, err := v.ExportWith(s, format, sdk.ExportOptions{Players: players})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s export lacks %q:\n%s", format, w, text)
			}
		}
		if _, _, err := v.Import(format, text); err != nil {
			t.Errorf("%s export with names does not import: %v\n%s", format, err, text)
		}
		plain, _ := v.Export(s, format)
		if none, _ := v.ExportWith(s, format, sdk.ExportOptions{}); none != plain {
			t.Errorf("%s export without names differs from Export", format)
		}
	}
}
