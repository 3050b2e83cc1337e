package room

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
)

// TestEncoderKnowsEveryField: the structs appendEvent writes are the ones it
// was written for. A field added to an Event or a View (or any struct in
// them) must be added to encode.go: until then every event falls back to
// encoding/json.
func TestEncoderKnowsEveryField(t *testing.T) {
	for typ, want := range shapes {
		if got := shapeOf(typ); got != want {
			t.Errorf("%s changed; update appendEvent (and for sdk.Cell sameCell) and its shape in encode.go:\n got %s\nwant %s", typ, got, want)
		}
	}
	if !shapesKnown {
		t.Error("shapesKnown is false: every event goes through encoding/json")
	}
}

// strs are the strings random events draw from: everything encoding/json
// escapes or replaces, and the texts rooms really carry.
var strs = []string{
	"", "a", "move", "7g7f", "P*5e", "７六歩(77)", "☗7六歩", "炮二平五", `quote"`, `back\slash`,
	"<script>&amp;</script>", "line\nbreak\ttab\r\b\f", "\x00\x01\x1f\x7f", "\u2028\u2029", "bad\xffutf8\xc3",
	"emoji 🀄", "error.illegal_move", "notice.check",
	// Around appendString's quick path for three-byte characters: cut
	// short, a surrogate, overlong, the neighbours of U+2028, the last.
	"歩\xe6\xad", "\xed\xa0\x80", "\xe0\x80\xaf", "\xe0\xa0\x80", "a\u2027b\u202ac", "\xe2\x80\xa8x", "\xef\xbf\xbf", "\xe2\x80",
}

// fill sets v to a random value: every field of every struct, pointers
// mostly set, slices mostly non-empty (sometimes nil or empty, which JSON
// tells apart).
func fill(rng *rand.Rand, v reflect.Value, depth int) {
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)).In(time.FixedZone("", 3600*(rng.IntN(25)-12)))))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(strs[rng.IntN(len(strs))])
	case reflect.Int, reflect.Int64, reflect.Int32:
		switch rng.IntN(4) {
		case 0:
			v.SetInt(0)
		case 1:
			v.SetInt(-rng.Int64N(1000))
		default:
			v.SetInt(rng.Int64N(1 << 40))
		}
	case reflect.Bool:
		v.SetBool(rng.IntN(3) > 0)
	case reflect.Pointer:
		if depth > 4 || rng.IntN(5) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		fill(rng, p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		switch rng.IntN(6) {
		case 0:
			return // nil
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		n := 1 + rng.IntN(4)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			fill(rng, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		switch rng.IntN(6) {
		case 0:
			return // nil
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
			return
		}
		m := reflect.MakeMap(v.Type())
		for range 1 + rng.IntN(4) {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(rng, k, depth+1)
			fill(rng, e, depth+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() { // Event.packed: TestAppendEventLegalFor
				fill(rng, v.Field(i), depth+1)
			}
		}
	default:
		panic("fill: no case for " + v.Type().String())
	}
}

func TestAppendEventIsJSONMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		var ev Event
		fill(rng, reflect.ValueOf(&ev).Elem(), 0)
		want, wantErr := json.Marshal(ev)
		got, err := appendEvent(nil, &ev)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(got, want) {
			t.Fatalf("event %d:\n got %s (%v)\nwant %s (%v)", i, got, err, want, wantErr)
		}
	}
}

// TestAppendEventLegalFor: a view encoded with a packed list and board
// (packedFor) is, byte for byte, the view whose Legal holds that seat's
// moves of it and whose Board holds the cells.
func TestAppendEventLegalFor(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 5000 {
		var ev Event
		fill(rng, reflect.ValueOf(&ev).Elem(), 0)
		if ev.View == nil {
			continue
		}
		list, seat := sliceLegal(ev.View.Legal), sdk.Seat(rng.IntN(3)-1)
		want := ev
		v := *ev.View
		if v.Legal = listedMoves(list, seat); v.Legal == nil {
			v.Legal = []sdk.LegalMove{}
		}
		pf := packedFor{legal: list, seat: seat}
		gv := *ev.View
		gv.Legal = []sdk.LegalMove{}
		if i%2 == 0 { // the board packed too
			pf.board = sliceBoard(v.Board)
			v.Board = listedCells(pf.board)
			gv.Board = nil
		}
		want.View = &v
		wantB, wantErr := json.Marshal(want)
		got := ev
		got.View, got.packed = &gv, pf
		gotB, err := appendEvent(nil, &got)
		if (err != nil) != (wantErr != nil) || !bytes.Equal(gotB, wantB) {
			t.Fatalf("event %d:\n got %s (%v)\nwant %s (%v)", i, gotB, err, wantB, wantErr)
		}
	}
}

// TestAppendEventRoomEvents: the events a room really sends, as they are.
func TestAppendEventRoomEvents(t *testing.T) {
	s := sdk.Seat(1)
	exp := time.Date(2026, 12, 1, 18, 0, 0, 123, time.UTC)
	for _, ev := range []Event{
		{Type: EvAck, Version: 7, ID: "a1"},
		{Type: EvAck, Version: 0, ID: "a1", Duplicate: true},
		{Type: EvMove, Version: 8, Round: 0, Seat: &s, Move: "7g7f", Played: &sdk.PlayedMove{Seat: 1, Move: "7g7f", Text: "☗7六歩"},
			View: &sdk.View{Ply: 3, Status: sdk.Playing, Board: []sdk.Cell{{}, {Kind: "P", Owner: 1}}, ToMove: []sdk.Seat{0}, Legal: []sdk.LegalMove{}}},
		{Type: EvPresence, Version: 8, Presence: &Presence{Seats: []SeatPresence{{Taken: true, Connected: true}, {}}}},
		{Type: EvSeatCode, Version: 8, SeatCode: "ABCD2345", Expires: &exp},
		{Type: EvError, Code: "internal", Message: "internal error"},
		{Type: EvWelcome, Seat: new(sdk.Seat), Resync: "full", NewRound: &Pending{By: 1}},
	} {
		want, _ := json.Marshal(ev)
		got, err := marshal(ev)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("got %s (%v)\nwant %s", got, err, want)
		}
	}
}

func TestAppendEventTimeOutOfRange(t *testing.T) {
	bad := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	_, wantErr := json.Marshal(Event{Expires: &bad})
	if _, err := marshal(Event{Expires: &bad}); err == nil || wantErr == nil {
		t.Fatalf("a time JSON cannot hold must be an error: %v (encoding/json: %v)", err, wantErr)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range strs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("appendString(%q) = %s, want %s", s, got[1:], want)
		}
	})
}

func BenchmarkEncodeMoveEvent(b *testing.B) {
	ev := benchEvent()
	b.Run("appendEvent", func(b *testing.B) {
		for b.Loop() {
			marshal(ev)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			json.Marshal(ev)
		}
	})
}

// benchEvent is a move event of a shogi-sized view: 81 cells, 80 legal moves.
func benchEvent() Event {
	v := sdk.View{Ply: 40, Status: sdk.Playing, Position: "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
		ToMove: []sdk.Seat{0}, Hands: [][]sdk.HandPiece{{{Kind: "P", Count: 2}}, {}}}
	for i := range 81 {
		v.Board = append(v.Board, sdk.Cell{Kind: []string{"", "P", "G"}[i%3], Owner: sdk.Seat(i % 2)})
	}
	for i := range 80 {
		v.Legal = append(v.Legal, sdk.LegalMove{Seat: 0, Kind: sdk.BoardMove, Move: "7g7f", Text: "７六歩(77)", Alt: "P-7f", From: i, To: i + 1})
	}
	s := sdk.Seat(0)
	return Event{Type: EvMove, Version: 41, Seat: &s, Move: "7g7f", Played: &sdk.PlayedMove{Move: "7g7f", Text: "☗7六歩"}, View: &v}
}
