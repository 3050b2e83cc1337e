package harness

import "testing"

func TestParseLocator(t *testing.T) {
	for in, want := range map[string]locator{
		`role=button[name="New round"]`: {Role: "button", Name: "New round"},
		`role=button[name='Resign']`:    {Role: "button", Name: "Resign"},
		`role=dialog`:                   {Role: "dialog"},
		`text=Export`:                   {Text: "Export"},
		`text="Export the game"`:        {Text: "Export the game"},
	} {
		got, err := parseLocator(in)
		if err != nil || got != want {
			t.Errorf("parseLocator(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{`role=Button`, `role=button[name=Resign]`, `text=`, `role=button[label="x"]`} {
		if _, err := parseLocator(bad); err == nil {
			t.Errorf("parseLocator(%q) took it", bad)
		}
	}
	if _, err := Parse([]byte("variant: shogi\nsteps:\n  - press: role=button[name=Resign]\n")); err == nil {
		t.Error("a scenario with a broken locator parsed")
	}
}
