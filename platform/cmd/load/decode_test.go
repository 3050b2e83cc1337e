package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/banmen/banmen/platform/internal/room"
	"github.com/banmen/banmen/sdk"
)

// sampleEvents are the server's messages as the room encodes them: a move
// event with a board, texts in Japanese and the legal moves, an ack, a
// refusal, presence, a new-round request, a welcome with history.
func sampleEvents(t testing.TB) [][]byte {
	seat := sdk.Seat(1)
	v := sdk.View{Ply: 3, Status: sdk.Playing, Position: "lnsgkgsnl/9 b - 1", ToMove: []sdk.Seat{0},
		Board:   []sdk.Cell{{Owner: -1}, {Kind: "P", Owner: 1, Facing: 2, Promoted: true}},
		Hands:   [][]sdk.HandPiece{{{Kind: "P", Count: 2}}, {}},
		History: []sdk.PlayedMove{{Seat: 0, Move: "7g7f", Text: "☗7六歩"}},
		Legal: []sdk.LegalMove{{Seat: 0, Kind: sdk.BoardMove, Move: "7g7f", Text: "☗7六歩(77)", Alt: "P-7f", From: 60, To: 51},
			{Seat: 0, Kind: sdk.DropMove, Move: "P*5e", Text: "☗5五歩打", From: -1, To: 40, Drop: "P"},
			{Seat: 0, Kind: sdk.Action, Move: "declare", Text: "入玉宣言", From: -1, To: -1, Key: "move.declare"}},
		Notices: []string{"notice.check"}, Result: &sdk.Result{Reason: "x"}}
	empty := v
	empty.Legal, empty.History, empty.ToMove = []sdk.LegalMove{}, nil, nil
	var out [][]byte
	for _, ev := range []room.Event{
		{Type: room.EvMove, Version: 4, Seat: &seat, Move: "7g7f", Played: &sdk.PlayedMove{Move: "7g7f", Text: "☗7六歩"}, View: &v},
		{Type: room.EvMove, Version: 5, Seat: &seat, Move: "3c3d", View: &empty},
		{Type: room.EvAck, Version: 5, ID: "1z"},
		{Type: room.EvAck, Version: 5, ID: "1z", Duplicate: true},
		{Type: room.EvRefused, Version: 5, ID: "20", Code: "stale", Key: "error.stale", Message: "the room is at version 5, not 4"},
		{Type: room.EvRefused, Version: 5, ID: "21", Code: "x", Message: "非ASCII <and> \"quotes\""},
		{Type: room.EvPresence, Version: 5, Presence: &room.Presence{Seats: []room.SeatPresence{{Taken: true, Connected: true}}}},
		{Type: room.EvRequest, Version: 6, Seat: &seat, NewRound: &room.Pending{By: 1, Accepted: []sdk.Seat{1}}},
		{Type: room.EvWelcome, Version: 6, Seat: &seat, Room: "r", Variant: "shogi", Resync: "full", View: &v},
	} {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// read is what a player reads of a message, comparable with
// reflect.DeepEqual (an empty list and none are the same to it).
type read struct {
	Type, ID, Code, Message string
	Version                 int64
	Duplicate, View         bool
	Ply                     int
	Status                  string
	ToMove                  []int
	Moves                   []string
	NewRound                bool
	By                      int
}

func (ev *event) read() read {
	r := read{Type: ev.Type, ID: string(ev.ID), Code: ev.Code, Message: ev.Message, Version: ev.Version,
		Duplicate: ev.Duplicate, View: ev.HasView, NewRound: ev.NewRound, By: ev.By}
	if ev.HasView {
		r.Ply, r.Status = ev.View.Ply, ev.View.Status
		if len(ev.View.ToMove) > 0 {
			r.ToMove = ev.View.ToMove
		}
		for i := range ev.View.Moves.len() {
			r.Moves = append(r.Moves, string(ev.View.Moves.at(i)))
		}
	}
	return r
}

func (j *jsonEvent) read() read {
	var ev event
	j.into(&ev)
	return ev.read()
}

// decodeBoth decodes b with decodeEvent (into an event that read another
// message first, as a seat's does) and with encoding/json.
func decodeBoth(b []byte) (fast, slow read, fastErr, slowErr error) {
	var ev event
	decodeEvent(prior, &ev)
	fastErr = decodeEvent(b, &ev)
	fast = ev.read()
	var j jsonEvent
	slowErr = json.Unmarshal(b, &j)
	slow = j.read()
	return
}

// prior is a message with every field, read before the one compared.
var prior = []byte(`{"type":"x","version":9,"id":"i","code":"c","message":"m","duplicate":true,` +
	`"view":{"ply":3,"status":"s","toMove":[0,1],"legal":[{"kind":"move","move":"a"}]},"newRound":{"by":1}}`)

func TestDecodeEventIsJSON(t *testing.T) {
	for _, b := range sampleEvents(t) {
		fast, slow, fe, se := decodeBoth(b)
		if fe != nil || se != nil || !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s:\n fast %+v (%v)\n json %+v (%v)", b, fast, fe, slow, se)
		}
		// The fast path took it: only the message with escapes in a field
		// a player reads needs encoding/json.
		var ev event
		if !fastDecode(b, &ev) && !bytes.Contains(b, []byte(`\u003c`)) {
			t.Errorf("%s went to encoding/json", b)
		}
	}
	for _, s := range []string{`{"type":"a","TYPE":"b"}`, `{"version":01}`, `{"version":1.5}`, `{"view":null}`,
		`{"view":{"legal":null,"toMove":null}}`, `{"x":"\u00e9\n"}`, `{"x":"\q"}`, "{\"x\":\"\x01\"}", `null`, `[]`,
		`{"type":"a"} x`, `{"type":null}`, `{"duplicate":1}`, `{"newRound":{"By":2}}`, `{"type":"a","type":"b"}`,
		`{"x":[1,-0,0.5,1e5,-2E-3,true,false,null,{"a":[]},"\ud800"]}`, `{"x":1.}`, `{"x":-}`, `{"x":.5}`, `{"x":1e}`,
		`{ "type" : "ack" , "version" : 3 }`, "{\"type\":\"ack\",\n\"version\":3}", `{"id":"\xff"}`,
		`{"view":{"legal":[{"kind":"action","move":"declare"},{"kind":"drop","move":"P*5e"},{"move":"x"}]}}`,
		`{"view":{"legal":[null]}}`, `{"view":{"legal":[{"move":"a\"b"}]}}`, `{"view":{"Legal":[]}}`,
		`{"version":-12345678901234567890}`, `{"version":123456789012345678}`, `{"x":"日本"}`, `{"日本":1}`,
		`{"type":"` + "\xe2\x28" + `"}`, `{"kınd":1}`, `{"view":{"toMove":[1,"a"]}}`} {
		fast, slow, fe, se := decodeBoth([]byte(s))
		if (fe == nil) != (se == nil) || fe == nil && !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s:\n fast %+v (%v)\n json %+v (%v)", s, fast, fe, slow, se)
		}
	}
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	if _, _, fe, se := decodeBoth([]byte(`{"x":` + deep + `}`)); fe == nil || se == nil {
		t.Errorf("nesting of 20000: fast %v, json %v", fe, se)
	}
}

// TestDecodeEventAllocatesNothing: the messages of a move (the move
// events, the ack, presence, a new-round request) cost no allocation once
// the seat's event has its buffers.
func TestDecodeEventAllocatesNothing(t *testing.T) {
	msgs := sampleEvents(t)
	var ev event
	for _, m := range msgs {
		decodeEvent(m, &ev)
	}
	for _, i := range []int{0, 1, 2, 3, 6, 7} {
		m := msgs[i]
		if n := testing.AllocsPerRun(100, func() { decodeEvent(m, &ev) }); n != 0 {
			t.Errorf("%s: %v allocations", m, n)
		}
	}
}

func FuzzDecodeEvent(f *testing.F) {
	for _, b := range sampleEvents(f) {
		f.Add(b)
	}
	f.Add([]byte(`{"type":"a","TYPE":"b","version":01}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		fast, slow, fe, se := decodeBoth(b)
		if (fe == nil) != (se == nil) || fe == nil && !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\n fast %+v (%v)\n json %+v (%v)", b, fast, fe, slow, se)
		}
	})
}

func BenchmarkDecodeMoveEvent(b *testing.B) {
	msg := sampleEvents(b)[0]
	b.Run("decodeEvent", func(b *testing.B) {
		var ev event
		for b.Loop() {
			decodeEvent(msg, &ev)
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		for b.Loop() {
			var ev jsonEvent
			json.Unmarshal(msg, &ev)
		}
	})
}

// TestDecodeEventRepeatedKeys: encoding/json merges a repeated object key
// into what the first made; the fast path leaves those to it.
func TestDecodeEventRepeatedKeys(t *testing.T) {
	for _, s := range []string{`{"view":{"ply":1},"view":{"status":"x"}}`,
		`{"view":{"legal":[{"kind":"a"}],"legal":[{"move":"b"}]}}`, `{"newRound":{"by":1},"newRound":{}}`} {
		fast, slow, fe, se := decodeBoth([]byte(s))
		if fe != nil || se != nil || !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s:\n fast %+v (%v)\n json %+v (%v)", s, fast, fe, slow, se)
		}
	}
}

// shogiMoveEvent is a move event as the seat to move gets it in a game of
// shogi: the 81-cell board, the last move and about 40 legal moves with
// their texts (~6 KB, the messages most of the generator's time goes to).
func shogiMoveEvent(t testing.TB) []byte {
	seat := sdk.Seat(0)
	v := sdk.View{Ply: 31, Status: sdk.Playing, Position: "ln1g3nl/1r2kgs2/p1ppppbpp/1p4p2/7P1/2P6/PPSPPPP1P/1B2K2R1/LN1G1GSNL b - 32",
		ToMove: []sdk.Seat{1}, Hands: [][]sdk.HandPiece{{{Kind: "P", Count: 1}}, {}},
		LastMove: &sdk.LegalMove{Seat: 0, Kind: sdk.BoardMove, Move: "2e2d", Text: "▲２四歩", Alt: "P-2d", From: 43, To: 34}}
	for i := range 81 {
		c := sdk.Cell{Owner: -1}
		if i%3 != 1 {
			c = sdk.Cell{Kind: "PLNSGKRB"[i%8 : i%8+1], Owner: sdk.Seat(i / 41), Facing: 2 * (1 - i/41), Promoted: i%17 == 0}
		}
		v.Board = append(v.Board, c)
	}
	for i := range 40 {
		m := fmt.Sprintf("%d%c%d%c", 1+i%9, 'a'+i%9, 1+(i+1)%9, 'a'+(i+3)%9)
		l := sdk.LegalMove{Seat: 1, Kind: sdk.BoardMove, Move: sdk.Move(m), Text: "△３四歩", Alt: "P-3d", From: i, To: i + 9}
		if i%7 == 6 {
			l.Kind, l.Move, l.From, l.Drop = sdk.DropMove, sdk.Move("P*"+m[2:]), -1, "P"
		}
		v.Legal = append(v.Legal, l)
	}
	b, err := json.Marshal(room.Event{Type: room.EvMove, Version: 40, Seat: &seat, Move: "2e2d",
		Played: &sdk.PlayedMove{Move: "2e2d", Text: "▲２四歩"}, View: &v})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func BenchmarkDecodeShogiMoveEvent(b *testing.B) {
	msg := shogiMoveEvent(b)
	b.SetBytes(int64(len(msg)))
	var ev event
	for b.Loop() {
		if err := decodeEvent(msg, &ev); err != nil || ev.View.Moves.len() != 40 {
			b.Fatal(err, ev.View.Moves.len())
		}
	}
}
