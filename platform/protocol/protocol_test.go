package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
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
		{`{"type":"move","version":1.5,"move":"x"}`, false},
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

// roomJS are the messages webui/static/js/room.js sends, written as its
// JSON.stringify writes them (the objects' keys in the order the script
// builds them), with the requests they mean.
var roomJS = []struct {
	js   string // the line of room.js
	sent string
	want Request
}{
	{`const hello = { type: 'hello' }; hello.seatKey = k; hello.version = room.version`,
		`{"type":"hello","seatKey":"Yp0QabcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM","version":17}`,
		Request{Type: TypeHello, SeatKey: "Yp0QabcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM", Version: ver(17)}},
	{`hello.code = conn.code`, `{"type":"hello","code":"K7QM-2XWA"}`, Request{Type: TypeHello, Code: "K7QM-2XWA"}},
	{`hello.watch = true`, `{"type":"hello","watch":true}`, Request{Type: TypeHello, Watch: true}},
	{`hello.watch = true; hello.version = room.version`, `{"type":"hello","watch":true,"version":0}`, Request{Type: TypeHello, Watch: true, Version: ver(0)}},
	{`{ type: 'ping', id: 'p' }`, `{"type":"ping","id":"p"}`, Request{Type: TypePing, ID: "p"}},
	{`{ type: 'move', version: pending.version, move: pending.move, id: pending.id }`,
		`{"type":"move","version":15,"move":"P*5e","id":"m3"}`, Request{Type: TypeMove, Version: ver(15), Move: "P*5e", ID: "m3"}},
	{`(Yonin's seat-prefixed move text)`, `{"type":"move","version":4,"move":"0:5i5h","id":"m1"}`, Request{Type: TypeMove, Version: ver(4), Move: "0:5i5h", ID: "m1"}},
	{`{ type, version: room.version, id } (resign)`, `{"type":"resign","version":9,"id":"r4"}`, Request{Type: TypeResign, Version: ver(9), ID: "r4"}},
	{`act('newRound')`, `{"type":"newRound","version":9,"id":"n5"}`, Request{Type: TypeNewRound, Version: ver(9), ID: "n5"}},
	{`act('accept')`, `{"type":"accept","version":10,"id":"a6"}`, Request{Type: TypeAccept, Version: ver(10), ID: "a6"}},
	{`act('start')`, `{"type":"start","version":1,"id":"s7"}`, Request{Type: TypeStart, Version: ver(1), ID: "s7"}},
	{`act('decline')`, `{"type":"decline","version":10,"id":"d8"}`, Request{Type: TypeDecline, Version: ver(10), ID: "d8"}},
	{`act('withdraw')`, `{"type":"withdraw","version":10,"id":"w9"}`, Request{Type: TypeWithdraw, Version: ver(10), ID: "w9"}},
	{`{ type: 'seatCode', id: nextID('c') }`, `{"type":"seatCode","id":"c10"}`, Request{Type: TypeSeatCode, ID: "c10"}},
	{`act('claimWin')`, `{"type":"claimWin","version":12,"id":"c11"}`, Request{Type: TypeClaimWin, Version: ver(12), ID: "c11"}},
	{`{ type: 'name', version: room.version, id, name: $('name-input').value.trim() }`,
		`{"type":"name","version":3,"id":"n12","name":"花子"}`, Request{Type: TypeName, Version: ver(3), ID: "n12", Name: "花子"}},
}

// ver is a request's version.
func ver(n int64) *int64 { return &n }

// TestDecodesWhatRoomJSSends: the messages room.js sends are read as the
// requests they mean.
func TestDecodesWhatRoomJSSends(t *testing.T) {
	for _, tc := range roomJS {
		got, err := Decode([]byte(tc.sent))
		if err != nil {
			t.Errorf("%s: %s: %v", tc.js, tc.sent, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %s read as %+v, want %+v", tc.js, tc.sent, got, tc.want)
		}
	}
}

// TestDecodeKeepsNothingOfItsInput: a socket reads every message into the
// same buffer, so what Decode returns must not point into it.
func TestDecodeKeepsNothingOfItsInput(t *testing.T) {
	for _, msg := range []string{
		`{"type":"move","version":7,"move":"7g7f","id":"m1"}`,
		`{"type":"move","version":7,"move":"7g7f","id":"m\u0031"}`,
		`{"type":"hello","seatKey":"k","code":"c","watch":false}`,
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

// TestEventBytes: the wire form of events as docs/protocol.md shows them:
// the field names, and empty fields left out.
func TestEventBytes(t *testing.T) {
	s := sdk.Seat(1)
	exp := time.Date(2026, 5, 1, 10, 5, 0, 0, time.UTC)
	for _, tc := range []struct {
		ev   Event
		want string
	}{
		{Event{Type: EvAck, Version: 18, ID: "m18"}, `{"type":"ack","version":18,"id":"m18"}`},
		{Event{Type: EvAck, Version: 18, Duplicate: true}, `{"type":"ack","version":18,"duplicate":true}`},
		{Event{Type: EvRefused, Version: 17, ID: "m18", Code: "illegal_move", Key: "error.illegal_move", Message: "no"},
			`{"type":"refused","version":17,"id":"m18","code":"illegal_move","key":"error.illegal_move","message":"no"}`},
		{Event{Type: EvSeatCode, Version: 3, SeatCode: "K7QM2XWA", Expires: &exp}, `{"type":"seatCode","version":3,"seatCode":"K7QM2XWA","expires":"2026-05-01T10:05:00Z"}`},
		{Event{Type: EvPresence, Version: 2, Presence: &Presence{Seats: []SeatPresence{{Taken: true, Connected: true}, {Computer: true}}, Spectators: 2}},
			`{"type":"presence","version":2,"presence":{"seats":[{"taken":true,"connected":true},{"taken":false,"connected":false,"computer":true}],"spectators":2}}`},
		{Event{Type: EvMove, Version: 18, Round: 1, Seat: &s, Move: "7g7f", Played: &sdk.PlayedMove{Seat: 1, Move: "7g7f", Text: "7f"},
			View: &sdk.View{Ply: 16, Status: sdk.Playing, ToMove: []sdk.Seat{0}, Legal: []sdk.LegalMove{}}, Cells: []CellAt{{At: 51, Cell: sdk.Cell{Kind: "P"}}, {At: 60, Cell: sdk.Cell{Owner: -1}}}},
			`{"type":"move","version":18,"round":1,"seat":1,"move":"7g7f","played":{"seat":1,"move":"7g7f","text":"7f"},` +
				`"view":{"ply":16,"status":"playing","position":"","board":null,"toMove":[0],"history":null,"legal":[]},` +
				`"cells":[{"at":51,"cell":{"kind":"P","owner":0}},{"at":60,"cell":{"owner":-1}}]}`},
		{Event{Type: EvReplaced, Version: 4, Reason: "another_connection"}, `{"type":"replaced","version":4,"reason":"another_connection"}`},
	} {
		got, err := Encode(&tc.ev)
		if err != nil || string(got) != tc.want {
			t.Errorf("Encode(%+v) = %s (%v)\nwant %s", tc.ev, got, err, tc.want)
		}
	}
	if got, want := string(Error("bad_request", "hello first")), `{"type":"error","version":0,"code":"bad_request","message":"hello first"}`; got != want {
		t.Errorf("Error = %s, want %s", got, want)
	}
}

// stdDecode is Decode as it was written on encoding/json, the reference
// the codec is held to.
func stdDecode(b []byte) (Request, error) {
	var r Request
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Request{}, err
	}
	if dec.More() {
		return Request{}, errors.New("data after the object")
	}
	if err := r.Validate(); err != nil {
		return Request{}, err
	}
	return r, nil
}

// FuzzDecode, from seeds that include what room.js sends: nothing panics;
// Decode takes what encoding/json, as strict,
// takes, and reads it as the same request; what it takes is what a plain
// encoding/json decode into a map holds (every key known, the same
// values); EncodeRequest writes it as encoding/json does, and that decodes
// to itself.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"type":"hello","seatKey":"abc","version":4}`, `{"type":"move","version":7,"move":"P*5e","id":"1"}`,
		`{"type":"newRound","version":0}`, `{"type":"seatCode"}`, `{"type":"hello","code":"ABCD-2345"}`, `{"type":"ping"}`,
		`{"type":"hello","watch":true,"version":0}`, `{"type":"move","version":1,"move":"\u00e9"}`,
		`{"type":"name","version":2,"name":"\u82b1\u5b50"}`, `{"TYPE":"ping","Id":"x"}`, `{"type":"ping","id":"a","id":"b"}`,
		`{"type":"move","version":1e1,"move":"x"}`, `{"type":"move","version":1,"move":"\ud800"}`, "{\"type\":\"ping\",\"id\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	for _, tc := range roomJS {
		f.Add([]byte(tc.sent))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(b)
		want, stdErr := stdDecode(b)
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("%q: Decode says %v, encoding/json %v", b, err, stdErr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(r, want) {
			t.Fatalf("%q: Decode reads %s, encoding/json %s", b, showRequest(r), showRequest(want))
		}
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("%q: Decode took it, a map decode says %v", b, err)
		}
		again, err := EncodeRequest(&r)
		if err != nil {
			t.Fatal(err)
		}
		if std, _ := json.Marshal(&r); !bytes.Equal(again, std) {
			t.Fatalf("%s: EncodeRequest writes %s, encoding/json %s", showRequest(r), again, std)
		}
		var back map[string]any
		dec = json.NewDecoder(bytes.NewReader(again))
		dec.UseNumber()
		if err := dec.Decode(&back); err != nil {
			t.Fatal(err)
		}
		// Request's fields match keys without regard to case and a later
		// duplicate wins; empty values are left out when written back.
		if !foldedDuplicates(m) {
			plain := map[string]any{}
			for k, v := range m {
				f, ok := canonical(k)
				if !ok {
					t.Fatalf("%q: Decode took the unknown key %q", b, k)
				}
				if n, isNum := v.(json.Number); isNum {
					i, _ := n.Int64() // "-0" is 0
					v = json.Number(fmt.Sprint(i))
				}
				if !isEmpty(v) && v != json.Number("0") || f == "version" && v != nil {
					plain[f] = v
				}
			}
			if !reflect.DeepEqual(plain, back) {
				t.Fatalf("%q: a map decode holds %v, Decode's request written back %v", b, plain, back)
			}
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

func showRequest(r Request) string {
	if r.Version == nil {
		return fmt.Sprintf("%+v", r)
	}
	return fmt.Sprintf("%+v version %d", r, *r.Version)
}

// events are what a host sent in a shogi game (testdata/events.jsonl:
// presence, join, a move event to each side, the mover's with its legal
// moves, an ack), and events of the other types written here.
func events(tb testing.TB) [][]byte {
	b, err := os.ReadFile("testdata/events.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	out := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	s := sdk.Seat(0)
	exp := time.Date(2026, 5, 1, 10, 5, 0, 123456789, time.FixedZone("", 9*3600))
	for _, ev := range []Event{
		{Type: EvWelcome, Version: 9, Seat: &s, Room: "r1", Variant: "shogi", SeatKey: "k", Resync: "full",
			Settings: sdk.Options{"host.move_time": "30", "handicap": "none"}, Clock: &Clock{Seat: 1, Limit: 30000, Remaining: 1234},
			NewRound: &Pending{By: 1, Accepted: []sdk.Seat{1}}, Broken: &Broken{Code: "rules_changed", Message: "<b>&", At: 4, RulesVersion: "1", Installed: "2"},
			View: &sdk.View{Status: sdk.Over, Board: []sdk.Cell{{Kind: "K", Owner: 1, Facing: 2, Promoted: true, Flipped: true}, {}}, Hands: [][]sdk.HandPiece{{{Kind: "P", Count: 2}}, nil},
				InCheck: []sdk.Seat{1}, Eliminated: []sdk.Seat{}, Score: []int{3, -1}, History: []sdk.PlayedMove{{Seat: 0, Move: "7g7f", Text: "x", Number: 3}},
				Result: &sdk.Result{Winners: []sdk.Seat{0}}, Notices: []string{"notice.check"}, Details: []sdk.KeyValue{{}}, HideLegal: true}},
		{Type: EvSeatCode, Version: 3, ID: "c1", SeatCode: "K7QM2XWA", Expires: &exp},
		{Type: EvName, Version: 4, Seat: &s, Name: "花子 \u2028 <script>"},
		{Type: EvMove, Version: 5, Seat: &s, Move: "resign", Computer: true, Claimed: true, Cells: []CellAt{}},
		{Type: EvPresence, Presence: &Presence{Seats: []SeatPresence{{Taken: true, Computer: true, Gone: true, Name: "a"}}, Started: true}},
		{Type: EvRefused, Version: 2, ID: "m1", Duplicate: true, Code: "illegal_move", Key: "error.illegal_move", Message: "\x00\x1f\"\\"},
	} {
		b, err := json.Marshal(&ev)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestEventsAsEncodingJSON: the events, read back by DecodeEvent and
// encoding/json, are the same event, and Encode writes them byte for byte
// as they were sent.
func TestEventsAsEncodingJSON(t *testing.T) {
	for _, b := range events(t) {
		var got, want Event
		if err := DecodeEvent(b, &got); err != nil {
			t.Fatalf("%.80s: %v", b, err)
		}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%.80s: DecodeEvent reads %+v, encoding/json %+v", b, got, want)
		}
		if out, err := Encode(&got); err != nil || !bytes.Equal(out, b) {
			t.Errorf("Encode(%.80s) = %.80s (%v)", b, out, err)
		}
	}
}

// FuzzEvent: DecodeEvent takes what encoding/json takes, as the same
// event, and Encode writes every event, and any text in its strings, byte
// for byte as encoding/json does.
func FuzzEvent(f *testing.F) {
	for _, b := range events(f) {
		f.Add(b)
	}
	f.Add([]byte(`{"type":"name","name":"\ud800\udc00\ud800","version":-1}`))
	f.Add([]byte("{\"type\":\"error\",\"message\":\"\xe2\x80\xa8<>&\xff\"}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var got, want Event
		err := DecodeEvent(b, &got)
		stdErr := json.Unmarshal(b, &want)
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("%q: DecodeEvent says %v, encoding/json %v", b, err, stdErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: DecodeEvent reads %+v, encoding/json %+v", b, got, want)
		}
		// Any text in the strings, as the room may send it.
		want.Message, want.Name, want.Move = string(b), string(b), sdk.Move(b)
		gb, err := Encode(&want)
		wb, stdErr := json.Marshal(&want)
		if err != nil || stdErr != nil || !bytes.Equal(gb, wb) {
			t.Fatalf("Encode writes %q (%v), encoding/json %q (%v)", gb, err, wb, stdErr)
		}
	})
}

func equalFold(a, b string) bool { return bytes.EqualFold([]byte(a), []byte(b)) }

func isEmpty(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case bool:
		return !x
	case nil:
		return true
	}
	return false
}

func canonical(k string) (string, bool) {
	for _, f := range []string{"type", "id", "version", "move", "seatKey", "code", "watch", "name"} {
		if equalFold(k, f) {
			return f, true
		}
	}
	return "", false
}

func foldedDuplicates(m map[string]any) bool {
	seen := map[string]bool{}
	for k := range m {
		f := string(bytes.ToLower([]byte(k)))
		if seen[f] {
			return true
		}
		seen[f] = true
	}
	return false
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

// BenchmarkEvents: writing and reading the events of testdata/events.jsonl
// (a shogi game's, the largest the mover's with its legal moves), all of
// them an op.
func BenchmarkEvents(b *testing.B) {
	msgs := events(b)
	evs := make([]Event, len(msgs))
	for i, m := range msgs {
		if err := DecodeEvent(m, &evs[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("Encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for i := range evs {
				if _, err := Encode(&evs[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("DecodeEvent", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, m := range msgs {
				var ev Event
				if err := DecodeEvent(m, &ev); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
