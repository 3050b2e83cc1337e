package room

import (
	"encoding/json"
	"errors"
	"reflect"
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

// FuzzDecode: nothing panics, and a decoded request encodes and decodes to
// itself.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"type":"hello","seatKey":"abc","version":4}`, `{"type":"move","version":7,"move":"P*5e","id":"1"}`,
		`{"type":"newRound","version":0}`, `{"type":"seatCode"}`, `{"type":"hello","code":"ABCD-2345"}`, `{"type":"ping"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := Decode(again)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", again, err)
		}
		if !reflect.DeepEqual(r, r2) {
			t.Fatalf("round trip changed %+v to %+v", r, r2)
		}
	})
}
