package room

import (
	"errors"
	"fmt"
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

// TestDecodePlainTakesClientMessages: what clients send is read without
// encoding/json, and a few near misses are left to it.
func TestDecodePlainTakesClientMessages(t *testing.T) {
	for _, s := range []string{`{"type":"move","version":7,"move":"P*5e","id":"12"}`, ` { "type" : "hello", "seatKey":"a-b_c", "version": 0, "watch": false } `,
		`{"type":"resign","version":3}`, `{}`, `{"type":"hello","watch":true}`, `{"version":-2}`} {
		if _, ok := decodePlain([]byte(s)); !ok {
			t.Errorf("%s: not read plainly", s)
		}
	}
	for _, s := range []string{`{"Type":"move"}`, `{"move":"\u00e9"}`, `{"version":1.0}`, `{"version":1e2}`, `{"version":012}`,
		`{"type":"move",}`, `{"type":"move"} x`, `{"version":null}`, `{"move":"5e\\"}`, `{"id":"é"}`, `{"version":1234567890123456789}`} {
		if _, ok := decodePlain([]byte(s)); ok {
			t.Errorf("%s: read plainly", s)
		}
	}
}

// FuzzDecodePlain holds decodePlain to encoding/json: whatever it reads,
// decodeJSON reads as the same request.
func FuzzDecodePlain(f *testing.F) {
	for _, s := range []string{`{"type":"move","version":7,"move":"P*5e","id":"1"}`, `{"type":"hello","seatKey":"abc","version":4,"watch":true}`,
		`{"type":"seatCode","code":"ABCD-2345"}`, ` {"version":-0 , "type":"x"}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, ok := decodePlain(b)
		if !ok {
			return
		}
		want, err := decodeJSON(b)
		if err != nil {
			t.Fatalf("%q: plain %+v, encoding/json: %v", b, r, err)
		}
		if !reflect.DeepEqual(r, want) {
			t.Fatalf("%q: plain %+v, encoding/json %+v", b, r, want)
		}
	})
}

func BenchmarkDecodeMove(b *testing.B) {
	msg := []byte(`{"type":"move","version":1234,"move":"7g7f","id":"m1234"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(msg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecodeKeepsNothingOfItsInput: a socket reads every message into the
// same buffer, so what Decode returns must not point into it.
func TestDecodeKeepsNothingOfItsInput(t *testing.T) {
	for _, msg := range []string{
		`{"type":"move","version":7,"move":"7g7f","id":"m1"}`,           // the quick path
		`{"type":"move","version":7,"move":"7g7f","id":"m\u0031"}`,      // encoding/json's
		`{"type":"hello","seatKey":"k","code":"c","watch":false}`,       // the quick path
		`{"type":"hello","seatKey":"k\u006b","code":"c","watch":false}`, // encoding/json's
	} {
		b := []byte(msg)
		req, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", msg, err)
		}
		show := func() string {
			if req.Version == nil {
				return fmt.Sprintf("%+v", req)
			}
			return fmt.Sprintf("%+v %d", req, *req.Version)
		}
		before := show()
		for i := range b {
			b[i] = 'x'
		}
		if after := show(); after != before {
			t.Errorf("%s: after its bytes were overwritten the request reads %s, was %s", msg, after, before)
		}
	}
}
