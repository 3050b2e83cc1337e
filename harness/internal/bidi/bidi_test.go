package bidi

import (
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{`{"type":"success","id":3,"result":{"context":"x"}}`, ""},
		{`{"type":"error","id":4,"error":"no such frame","message":"gone"}`, ""},
		{`{"type":"error","id":null,"error":"invalid argument","message":"bad json"}`, ""},
		{`{"type":"event","method":"log.entryAdded","params":{"text":"hi"}}`, ""},
		{`{"type":"success","result":{}}`, "without an id"},
		{`{"type":"success","id":1,"result":[]}`, "not an object"},
		{`{"type":"error","id":1}`, "without an error code"},
		{`{"type":"event","params":{}}`, "without a method"},
		{`{"type":"event","method":"x.y","params":3}`, "not an object"},
		{`{"type":"hello"}`, "unknown message type"},
		{`[1,2]`, "not a message"},
		{``, "not a message"},
	} {
		m, err := Decode([]byte(tc.in))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("Decode(%s): %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Decode(%s) = %+v, %v; want an error with %q", tc.in, m, err, tc.err)
		}
	}
	m, _ := Decode([]byte(`{"type":"success","id":7,"result":{"a":1}}`))
	if *m.ID != 7 || string(m.Result) != `{"a":1}` {
		t.Errorf("decoded %+v", m)
	}
}

// FuzzDecode: any bytes decode to a well-formed message or an error, never
// a panic; a message that decodes has what its type promises.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"type":"success","id":3,"result":{"context":"x"}}`,
		`{"type":"error","id":4,"error":"no such frame","message":"gone"}`,
		`{"type":"event","method":"log.entryAdded","params":{"text":"hi"}}`,
		`{"type":"success","id":1e30,"result":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			return
		}
		switch m.Type {
		case "success":
			if m.ID == nil || len(m.Result) == 0 {
				t.Fatalf("a success without id or result: %+v", m)
			}
		case "error":
			if m.Error == "" {
				t.Fatalf("an error without a code: %+v", m)
			}
		case "event":
			if m.Method == "" || len(m.Params) == 0 {
				t.Fatalf("an event without method or params: %+v", m)
			}
		default:
			t.Fatalf("type %q decoded", m.Type)
		}
	})
}
