package protocol

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeNameAndClaim(t *testing.T) {
	for _, tc := range []struct {
		msg string
		ok  bool
	}{
		{`{"type":"name","version":3,"name":"Hanako"}`, true},
		{`{"type":"name","version":3}`, true}, // clears the name
		{`{"type":"name","name":"Hanako"}`, false},
		{`{"type":"name","version":3,"name":"` + strings.Repeat("x", MaxNameLen+1) + `"}`, false},
		{`{"type":"move","version":3,"move":"7g7f","name":"Hanako"}`, false},
		{`{"type":"claimWin","version":3}`, true},
		{`{"type":"claimWin"}`, false},
	} {
		_, err := Decode([]byte(tc.msg))
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, ErrBadMessage) {
			t.Errorf("Decode(%.60s) = %v, want ok %v", tc.msg, err, tc.ok)
		}
	}
}
