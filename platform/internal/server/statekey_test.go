package server

import (
	"bytes"
	"errors"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// TestStateSigner: a State sealed by the host opens to the plugin's bytes;
// one changed anywhere, of another variant, signed with another key,
// or bare (never issued) is refused with state_not_issued.
func TestStateSigner(t *testing.T) {
	s := newStateSigner([]byte("0123456789abcdef0123456789abcdef"))
	st := sdk.State("BNM plugin bytes")
	sealed := s.seal("shogi", st)
	if got, err := s.open("shogi", sealed); err != nil || !bytes.Equal(got, st) {
		t.Fatalf("open(seal) = %q, %v", got, err)
	}
	other := newStateSigner([]byte("another key, also 32 characters!"))
	for name, c := range map[string]struct {
		variant string
		st      sdk.State
	}{
		"bare":          {"shogi", st},
		"empty":         {"shogi", nil},
		"other variant": {"xiangqi", sealed},
		"other key":     {"shogi", other.seal("shogi", st)},
		"changed":       {"shogi", append(sdk.State("X"), sealed[1:]...)},
		"tag cut":       {"shogi", sealed[:len(sealed)-1]},
	} {
		_, err := s.open(c.variant, c.st)
		var ae *apiError
		if !errors.As(err, &ae) || ae.status != 400 || ae.code != "state_not_issued" {
			t.Errorf("%s: %v, want 400 state_not_issued", name, err)
		}
	}
}
