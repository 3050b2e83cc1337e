package harness

import "testing"

func TestKeysSent(t *testing.T) {
	tb := &tab{keys: []string{"Tab", "Tab", "Tab", "ArrowDown", "Enter", "ArrowUp", "ArrowUp", "Enter"}}
	if got, want := tb.keysSent(), "Tab×3 ArrowDown Enter ArrowUp×2 Enter"; got != want {
		t.Errorf("keysSent %q, want %q", got, want)
	}
	if got := (&tab{}).keysSent(); got != "none" {
		t.Errorf("no keys: %q", got)
	}
}
