package socket

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/banmen/banmen/platform/protocol"
)

// The fuzz target of the room message decoder lives here, not in package
// room, so that its instrumented test binary does not include the SQLite
// driver (which room's own tests use and which takes long to instrument).

// FuzzDecode: nothing panics, and a decoded request encodes and decodes to
// itself.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"type":"hello","seatKey":"abc","version":4}`, `{"type":"move","version":7,"move":"P*5e","id":"1"}`,
		`{"type":"newRound","version":0}`, `{"type":"seatCode"}`, `{"type":"hello","code":"ABCD-2345"}`, `{"type":"ping"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := protocol.Decode(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := protocol.Decode(again)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", again, err)
		}
		if !reflect.DeepEqual(r, r2) {
			t.Fatalf("round trip changed %+v to %+v", r, r2)
		}
	})
}
