package rules

import (
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestUCCI(t *testing.T) {
	for _, tc := range []struct {
		text     string
		from, to Square
	}{
		{"h2e2", sq(7, 2), sq(4, 2)},
		{"a0a9", sq(0, 0), sq(0, 9)},
		{"i9i8", sq(8, 9), sq(8, 8)},
	} {
		m, err := ParseUCCI(tc.text)
		if err != nil || m.From() != tc.from || m.To() != tc.to {
			t.Errorf("ParseUCCI(%q) = %v, %v", tc.text, m, err)
		}
		if got := UCCI(m); got != tc.text {
			t.Errorf("UCCI(%q) = %q", tc.text, got)
		}
	}
	for _, bad := range []string{"", "h2e", "h2e2 ", "H2E2", "j2e2", "h2e:", "e2e2", "h10e2", "resign", "h2-e2"} {
		if _, err := ParseUCCI(bad); !hasCode(err, sdk.CodeBadMove) {
			t.Errorf("ParseUCCI(%q) = %v, want bad_move", bad, err)
		}
	}
	p := StartPosition()
	if _, err := p.ParseLegalUCCI("h2h8"); !hasCode(err, sdk.CodeIllegalMove) {
		t.Errorf("h2h8 from the start: %v, want illegal_move", err)
	}
	if _, err := p.ParseLegalUCCI("h2e2"); err != nil {
		t.Errorf("h2e2 from the start: %v", err)
	}
}

// FuzzUCCI checks parse → print → parse on any text.
func FuzzUCCI(f *testing.F) {
	for _, s := range []string{"h2e2", "a0a9", "i9a0", "e2e2", "", "resign", "j0a0", "a:a0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseUCCI(s)
		if err != nil {
			if !hasCode(err, sdk.CodeBadMove) {
				t.Fatalf("ParseUCCI(%q): %v, want bad_move", s, err)
			}
			return
		}
		if out := UCCI(m); out != s {
			t.Fatalf("ParseUCCI(%q) prints %q", s, out)
		}
		if !onBoard[m.From()] || !onBoard[m.To()] {
			t.Fatalf("ParseUCCI(%q) is off the board", s)
		}
	})
}
