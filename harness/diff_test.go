package harness

import (
	"strings"
	"testing"
)

// TestListDifference: two long lists that differ after the first twelve
// items are shown by their first differing index, not by two identical cut
// lists.
func TestListDifference(t *testing.T) {
	want := make([]string, 20)
	got := make([]string, 20)
	for i := range want {
		want[i] = "m" + string(rune('a'+i))
		got[i] = want[i]
	}
	got[15] = "zz"
	d := difference("moves", want, got)
	for _, w := range []string{"moves: differ at index 15", `want "mp"`, `got "zz"`, "20 items each"} {
		if !strings.Contains(d, w) {
			t.Errorf("%q does not say %q", d, w)
		}
	}
	d = difference("moves", want, want[:18])
	for _, w := range []string{"moves: differ at index 18", `want "ms"`, "got (none)", "want 20 items, got 18"} {
		if !strings.Contains(d, w) {
			t.Errorf("%q does not say %q", d, w)
		}
	}
	if d := difference("ply", 3, 2); d != "ply: want 3, got 2" {
		t.Errorf("scalar difference %q", d)
	}
	if d := difference("moves", []string{"a"}, []string{"b"}); d != `moves: want ["a"], got ["b"]` {
		t.Errorf("short list difference %q", d)
	}
}
