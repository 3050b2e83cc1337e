package room

import (
	"errors"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{"type":"hello"}`, true},
		{`{"type":"hello","seatKey":"k","version":3}`, true},
		{`{"type":"move","version":0,"move":"7g7f","id":"a"}`, true},
		{`{"type":"move","move":"7g7f"}`, false}, // no version
		{`{"type":"move","version":1}`, false},   // no move
		{`{"type":"resign","version":2}`, true},
		{`{"type":"move","version":-1,"move":"x"}`, false},
		{`{"type":"nope"}`, false},
		{`{}`, false},
		{`{"type":"hello","extra":1}`, false},
		{`{"type":"ping"} {}`, false},
		{`{"type":"move","version":1,"move":"x","seatKey":"k"}`, false},
		{`{"type":"hello","watch":true}`, true},
		{`{"type":"accept","version":1,"watch":true}`, false},
		{`{"type":"hello","watch":"yes"}`, false},
		{`[1]`, false},
		{`{"type":"hello","seatKey":"` + string(make([]byte, 65)) + `"}`, false},
	} {
		_, err := Decode([]byte(tc.in))
		if (err == nil) != tc.ok {
			t.Errorf("Decode(%q) err = %v, want ok=%v", tc.in, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrBadMessage) {
			t.Errorf("Decode(%q) err = %v, not ErrBadMessage", tc.in, err)
		}
	}
}
