package room

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/banmen/banmen/sdk"
)

// The events' JSON, written without reflection. encoding/json walked every
// cell, legal move and history entry of each view through reflection: 14% of
// the host's CPU in the load test, and most of its garbage. appendEvent
// produces exactly the bytes json.Marshal produces for the same Event (a
// test compares the two on many random events with every field set, and a
// fuzz target the string escaping), so docs/protocol.md is unchanged.
//
// A struct this file writes that gains, loses or changes a field makes
// shapesKnown false at start: every event then goes through json.Marshal
// (correct, slower) until this file learns the field, and
// TestEncoderKnowsEveryField fails to say so.

// marshal encodes one event.
func marshal(ev Event) ([]byte, error) {
	if !shapesKnown {
		return json.Marshal(ev)
	}
	bp, err := marshalPooled(&ev)
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), *bp...)
	putBuf(bp)
	return out, nil
}

// marshalPooled is appendEvent into a buffer of encBufs, which the caller
// gives back with putBuf (on an error it is given back already).
func marshalPooled(ev *Event) (*[]byte, error) {
	bp := encBufs.Get().(*[]byte)
	b, err := appendEvent((*bp)[:0], ev)
	*bp = b
	if err != nil {
		putBuf(bp)
		return nil, err
	}
	return bp, nil
}

// putBuf gives an encoding buffer back, unless it grew beyond maxPooled.
func putBuf(bp *[]byte) {
	if cap(*bp) <= maxPooled {
		encBufs.Put(bp)
	}
}

// shapes are the structs appendEvent writes, as reflection sees them when
// this file was written: field names, types and tags, in order.
var shapes = map[reflect.Type]string{
	reflect.TypeFor[Event](): `Type string json:"type"|Version int64 json:"version"|Round int json:"round,omitempty"|` +
		`Seat *sdk.Seat json:"seat,omitempty"|Move sdk.Move json:"move,omitempty"|Played *sdk.PlayedMove json:"played,omitempty"|` +
		`Computer bool json:"computer,omitempty"|Clock *room.Clock json:"clock,omitempty"|View *sdk.View json:"view,omitempty"|Cells []room.CellAt json:"cells,omitempty"|NewRound *room.Pending json:"newRound,omitempty"|Presence *room.Presence json:"presence,omitempty"|` +
		`ID string json:"id,omitempty"|Duplicate bool json:"duplicate,omitempty"|Code string json:"code,omitempty"|` +
		`Key string json:"key,omitempty"|Message string json:"message,omitempty"|Reason string json:"reason,omitempty"|` +
		`SeatCode string json:"seatCode,omitempty"|Expires *time.Time json:"expires,omitempty"|Room string json:"room,omitempty"|` +
		`Variant string json:"variant,omitempty"|SeatKey string json:"seatKey,omitempty"|Resync string json:"resync,omitempty"|` +
		`Broken *room.Broken json:"broken,omitempty"|Settings sdk.Options json:"settings,omitempty"|packed room.packedFor `,
	reflect.TypeFor[CellAt]():       `At int json:"at"|Cell sdk.Cell json:"cell"`,
	reflect.TypeFor[Clock]():        `Seat sdk.Seat json:"seat"|Limit int64 json:"limit"|Remaining int64 json:"remaining"`,
	reflect.TypeFor[Pending]():      `By sdk.Seat json:"by"|Accepted []sdk.Seat json:"accepted"`,
	reflect.TypeFor[Presence]():     `Seats []room.SeatPresence json:"seats"|Spectators int json:"spectators"|Started bool json:"started,omitempty"`,
	reflect.TypeFor[SeatPresence](): `Taken bool json:"taken"|Connected bool json:"connected"|Computer bool json:"computer,omitempty"`,
	reflect.TypeFor[Broken](): `Code string json:"code"|Message string json:"message"|At int64 json:"at"|` +
		`RulesVersion string json:"rulesVersion,omitempty"|Installed string json:"installed,omitempty"`,
	reflect.TypeFor[sdk.View](): `Ply int json:"ply"|Status sdk.Status json:"status"|Position string json:"position"|` +
		`Board []sdk.Cell json:"board"|Hands [][]sdk.HandPiece json:"hands,omitempty"|ToMove []sdk.Seat json:"toMove"|` +
		`InCheck []sdk.Seat json:"inCheck,omitempty"|Eliminated []sdk.Seat json:"eliminated,omitempty"|Score []int json:"score,omitempty"|` +
		`LastMove *sdk.LegalMove json:"lastMove,omitempty"|History []sdk.PlayedMove json:"history"|Legal []sdk.LegalMove json:"legal"|` +
		`Result *sdk.Result json:"result,omitempty"|Notices []string json:"notices,omitempty"|Details []sdk.KeyValue json:"details,omitempty"|` +
		`HideLegal bool json:"hideLegal,omitempty"`,
	reflect.TypeFor[sdk.Cell](): `Kind string json:"kind,omitempty"|Owner sdk.Seat json:"owner"|Facing int json:"facing,omitempty"|` +
		`Promoted bool json:"promoted,omitempty"|Flipped bool json:"flipped,omitempty"`,
	reflect.TypeFor[sdk.HandPiece](): `Kind string json:"kind"|Count int json:"count"`,
	reflect.TypeFor[sdk.LegalMove](): `Seat sdk.Seat json:"seat"|Kind sdk.MoveKind json:"kind"|Move sdk.Move json:"move"|` +
		`Text string json:"text"|Alt string json:"alt,omitempty"|From int json:"from"|To int json:"to"|` +
		`Drop string json:"drop,omitempty"|Promote bool json:"promote,omitempty"|Key string json:"key,omitempty"`,
	reflect.TypeFor[sdk.PlayedMove](): `Seat sdk.Seat json:"seat"|Move sdk.Move json:"move"|Text string json:"text"|Alt string json:"alt,omitempty"|Number int json:"number,omitempty"`,
	reflect.TypeFor[sdk.Result](): `Winners []sdk.Seat json:"winners,omitempty"|Places []int json:"places,omitempty"|` +
		`Reason string json:"reason"|Draw bool json:"draw,omitempty"`,
	reflect.TypeFor[sdk.KeyValue](): `Key string json:"key"|Value string json:"value"`,
}

// shapeOf is t's fields as shapes lists them.
func shapeOf(t reflect.Type) string {
	var parts []string
	for i := range t.NumField() {
		f := t.Field(i)
		parts = append(parts, f.Name+" "+f.Type.String()+" "+string(f.Tag))
	}
	return strings.Join(parts, "|")
}

// shapesKnown: every struct appendEvent writes is as it expects.
var shapesKnown = func() bool {
	for t, want := range shapes {
		if shapeOf(t) != want {
			return false
		}
	}
	return true
}()

// The append functions write a field as `,"key":value`: every object this
// file writes starts with a field that is never omitted, except Cell and
// Result, whose first comma is taken back.

func appendInt[T ~int | ~int64](b []byte, key string, v T) []byte {
	b = append(b, key...)
	return strconv.AppendInt(b, int64(v), 10)
}

func appendIntOmit[T ~int | ~int64](b []byte, key string, v T) []byte {
	if v == 0 {
		return b
	}
	return appendInt(b, key, v)
}

func appendStr[T ~string](b []byte, key string, v T) []byte {
	b = append(b, key...)
	return appendString(b, string(v))
}

func appendStrOmit[T ~string](b []byte, key string, v T) []byte {
	if v == "" {
		return b
	}
	return appendStr(b, key, v)
}

func appendBoolOmit(b []byte, key string, v bool) []byte {
	if !v {
		return b
	}
	return append(append(b, key...), "true"...)
}

func appendBool(b []byte, key string, v bool) []byte {
	b = append(b, key...)
	return strconv.AppendBool(b, v)
}

// appendInts writes a slice of integers, null when nil as encoding/json does.
func appendInts[T ~int](b []byte, key string, v []T) []byte {
	b = append(b, key...)
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, n := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, ']')
}

func appendIntsOmit[T ~int](b []byte, key string, v []T) []byte {
	if len(v) == 0 {
		return b
	}
	return appendInts(b, key, v)
}

// appendList writes a slice with one per element, null when nil.
func appendList[T any](b []byte, key string, v []T, one func([]byte, *T) []byte) []byte {
	b = append(b, key...)
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = one(b, &v[i])
	}
	return append(b, ']')
}

// dropFirstComma takes back the comma after the brace at b[start].
func dropFirstComma(b []byte, start int) []byte {
	if len(b) > start+1 && b[start+1] == ',' {
		b = append(b[:start+1], b[start+2:]...)
	}
	return b
}

// encBufs are the encoders' scratch buffers: an event is encoded into one
// and copied out at its final size.
// encBufs are encoding buffers; one that grew beyond maxPooled is dropped.
const maxPooled = 1 << 20

var encBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// appendEvent appends ev's JSON, byte for byte json.Marshal(ev)'s.
func appendEvent(b []byte, ev *Event) ([]byte, error) {
	b = appendStr(append(b, '{'), `"type":`, ev.Type)
	b = appendInt(b, `,"version":`, ev.Version)
	b = appendIntOmit(b, `,"round":`, ev.Round)
	if ev.Seat != nil {
		b = appendInt(b, `,"seat":`, *ev.Seat)
	}
	b = appendStrOmit(b, `,"move":`, ev.Move)
	if ev.Played != nil {
		b = appendPlayed(append(b, `,"played":`...), ev.Played)
	}
	b = appendBoolOmit(b, `,"computer":`, ev.Computer)
	if c := ev.Clock; c != nil {
		b = appendInt(append(b, `,"clock":`...), `{"seat":`, c.Seat)
		b = appendInt(b, `,"limit":`, c.Limit)
		b = append(appendInt(b, `,"remaining":`, c.Remaining), '}')
	}
	if ev.View != nil {
		b = appendView(append(b, `,"view":`...), ev.View, ev.packed)
	}
	if len(ev.Cells) > 0 {
		b = appendList(b, `,"cells":`, ev.Cells, func(b []byte, c *CellAt) []byte {
			b = appendInt(append(b, '{'), `"at":`, c.At)
			return append(appendCell(append(b, `,"cell":`...), &c.Cell), '}')
		})
	}
	if p := ev.NewRound; p != nil {
		b = appendInt(append(b, `,"newRound":`...), `{"by":`, p.By)
		b = append(appendInts(b, `,"accepted":`, p.Accepted), '}')
	}
	if p := ev.Presence; p != nil {
		b = appendList(append(b, `,"presence":{`...), `"seats":`, p.Seats, func(b []byte, s *SeatPresence) []byte {
			b = appendBool(append(b, '{'), `"taken":`, s.Taken)
			b = appendBool(b, `,"connected":`, s.Connected)
			return append(appendBoolOmit(b, `,"computer":`, s.Computer), '}')
		})
		b = appendInt(b, `,"spectators":`, p.Spectators)
		b = append(appendBoolOmit(b, `,"started":`, p.Started), '}')
	}
	b = appendStrOmit(b, `,"id":`, ev.ID)
	b = appendBoolOmit(b, `,"duplicate":`, ev.Duplicate)
	b = appendStrOmit(b, `,"code":`, ev.Code)
	b = appendStrOmit(b, `,"key":`, ev.Key)
	b = appendStrOmit(b, `,"message":`, ev.Message)
	b = appendStrOmit(b, `,"reason":`, ev.Reason)
	b = appendStrOmit(b, `,"seatCode":`, ev.SeatCode)
	if ev.Expires != nil {
		t, err := ev.Expires.MarshalJSON()
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"expires":`...), t...)
	}
	b = appendStrOmit(b, `,"room":`, ev.Room)
	b = appendStrOmit(b, `,"variant":`, ev.Variant)
	b = appendStrOmit(b, `,"seatKey":`, ev.SeatKey)
	b = appendStrOmit(b, `,"resync":`, ev.Resync)
	if br := ev.Broken; br != nil {
		b = appendStr(append(b, `,"broken":{`...), `"code":`, br.Code)
		b = appendStr(b, `,"message":`, br.Message)
		b = appendInt(b, `,"at":`, br.At)
		b = appendStrOmit(b, `,"rulesVersion":`, br.RulesVersion)
		b = append(appendStrOmit(b, `,"installed":`, br.Installed), '}')
	}
	if len(ev.Settings) > 0 {
		b = append(b, `,"settings":{`...)
		for i, k := range slices.Sorted(maps.Keys(ev.Settings)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendString(b, k), ':')
			b = appendString(b, ev.Settings[k])
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

func appendPlayed(b []byte, p *sdk.PlayedMove) []byte {
	b = appendInt(append(b, '{'), `"seat":`, p.Seat)
	b = appendStr(b, `,"move":`, p.Move)
	b = appendStr(b, `,"text":`, p.Text)
	b = appendStrOmit(b, `,"alt":`, p.Alt)
	return append(appendIntOmit(b, `,"number":`, p.Number), '}')
}

func appendLegal(b []byte, l *sdk.LegalMove) []byte {
	b = appendInt(append(b, '{'), `"seat":`, l.Seat)
	b = appendStr(b, `,"kind":`, l.Kind)
	b = appendStr(b, `,"move":`, l.Move)
	b = appendStr(b, `,"text":`, l.Text)
	b = appendStrOmit(b, `,"alt":`, l.Alt)
	b = appendInt(b, `,"from":`, l.From)
	b = appendInt(b, `,"to":`, l.To)
	b = appendStrOmit(b, `,"drop":`, l.Drop)
	b = appendBoolOmit(b, `,"promote":`, l.Promote)
	return append(appendStrOmit(b, `,"key":`, l.Key), '}')
}

// appendLegalFor appends `,"legal":` and pf's moves as appendList writes
// a View's Legal that holds them.
func appendLegalFor(b []byte, pf packedFor) []byte {
	if pf.json != nil {
		return pf.json.appendFor(b, pf.seat)
	}
	b = append(b, `,"legal":[`...)
	first := true
	pf.legal.Each(func(m *sdk.LegalMove) bool {
		if m.Seat == pf.seat {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendLegal(b, m)
		}
		return true
	})
	return append(b, ']')
}

func appendCell(b []byte, c *sdk.Cell) []byte {
	if c.Kind == "" && c.Facing == 0 && !c.Promoted && !c.Flipped {
		// An empty square, most of a board.
		return append(appendInt(b, `{"owner":`, c.Owner), '}')
	}
	start := len(b)
	b = appendStrOmit(append(b, '{'), `,"kind":`, c.Kind)
	b = appendInt(b, `,"owner":`, c.Owner)
	b = appendIntOmit(b, `,"facing":`, c.Facing)
	b = appendBoolOmit(b, `,"promoted":`, c.Promoted)
	b = appendBoolOmit(b, `,"flipped":`, c.Flipped)
	return append(dropFirstComma(b, start), '}')
}

func appendHand(b []byte, h *[]sdk.HandPiece) []byte {
	if *h == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range *h {
		if i > 0 {
			b = append(b, ',')
		}
		p := &(*h)[i]
		b = appendStr(append(b, '{'), `"kind":`, p.Kind)
		b = append(appendInt(b, `,"count":`, p.Count), '}')
	}
	return append(b, ']')
}

// appendBoard appends `,"board":` and board's cells as appendList writes
// a View's Board that holds them.
func appendBoard(b []byte, board Board) []byte {
	b = append(b, `,"board":[`...)
	board.Each(func(at int, c *sdk.Cell) bool {
		if at > 0 {
			b = append(b, ',')
		}
		b = appendCell(b, c)
		return true
	})
	return append(b, ']')
}

// appendView appends v, with the legal moves and the board of pf where it
// has them.
func appendView(b []byte, v *sdk.View, pf packedFor) []byte {
	b = appendInt(append(b, '{'), `"ply":`, v.Ply)
	b = appendStr(b, `,"status":`, v.Status)
	b = appendStr(b, `,"position":`, v.Position)
	if pf.board != nil {
		b = appendBoard(b, pf.board)
	} else {
		b = appendList(b, `,"board":`, v.Board, appendCell)
	}
	if len(v.Hands) > 0 {
		b = appendList(b, `,"hands":`, v.Hands, appendHand)
	}
	b = appendInts(b, `,"toMove":`, v.ToMove)
	b = appendIntsOmit(b, `,"inCheck":`, v.InCheck)
	b = appendIntsOmit(b, `,"eliminated":`, v.Eliminated)
	b = appendIntsOmit(b, `,"score":`, v.Score)
	if v.LastMove != nil {
		b = appendLegal(append(b, `,"lastMove":`...), v.LastMove)
	}
	b = appendList(b, `,"history":`, v.History, appendPlayed)
	if pf.legal != nil {
		b = appendLegalFor(b, pf)
	} else {
		b = appendList(b, `,"legal":`, v.Legal, appendLegal)
	}
	if r := v.Result; r != nil {
		start := len(b) + len(`,"result":`)
		b = appendIntsOmit(append(b, `,"result":{`...), `,"winners":`, r.Winners)
		b = appendIntsOmit(b, `,"places":`, r.Places)
		b = appendStr(b, `,"reason":`, r.Reason)
		b = appendBoolOmit(b, `,"draw":`, r.Draw)
		b = append(dropFirstComma(b, start), '}')
	}
	if len(v.Notices) > 0 {
		b = appendList(b, `,"notices":`, v.Notices, func(b []byte, s *string) []byte { return appendString(b, *s) })
	}
	if len(v.Details) > 0 {
		b = appendList(b, `,"details":`, v.Details, func(b []byte, kv *sdk.KeyValue) []byte {
			b = appendStr(append(b, '{'), `"key":`, kv.Key)
			return append(appendStr(b, `,"value":`, kv.Value), '}')
		})
	}
	return append(appendBoolOmit(b, `,"hideLegal":`, v.HideLegal), '}')
}

// appendString appends s as json.Marshal quotes it. Printable ASCII other
// than " \ < > & and valid UTF-8 other than U+2028/U+2029 are copied; a
// string holding anything else (rare here: an escape, invalid UTF-8) is
// quoted by encoding/json itself, so the two cannot differ.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if plainASCII[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return appendQuoted(b, s)
		}
		// A three-byte character whose lead byte needs no check of the
		// second (most of Japanese and Chinese, and the marks ☗☖▲△):
		// valid when both bytes after it are continuation bytes. Only
		// U+2028 and U+2029 (E2 80 A8, E2 80 A9) are escaped among them.
		if c >= 0xe1 && c <= 0xef && c != 0xed && i+2 < len(s) &&
			s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 &&
			(c != 0xe2 || s[i+1] != 0x80 || s[i+2]&^1 != 0xa8) {
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
			return appendQuoted(b, s)
		}
		i += n
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainASCII are the bytes appendString copies as they are: printable
// ASCII other than " \ < > & (one table lookup a byte instead of seven
// comparisons).
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune(`"\<>&`, rune(c))
	}
	return t
}()

func appendQuoted(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// legalJSON is a legal list encoded as appendLegalFor writes it, move by
// move as the rules' answer is checked (LeanRules' each gives each move's
// JSON, host.EachLegalJSON), so that the list is read once, not once to
// check it and once more to encode it. runs are the moves of one seat in a
// row (in two-player games the whole list).
type legalJSON struct {
	b    []byte
	runs []legalRun
	n    int // moves put
	put  func(seat sdk.Seat, json []byte)
}

type legalRun struct {
	seat       sdk.Seat
	start, end int
}

var legalJSONs = sync.Pool{New: func() any {
	j := &legalJSON{}
	j.put = j.add
	return j
}}

func newLegalJSON() *legalJSON { return legalJSONs.Get().(*legalJSON) }

// maxLegalJSON bounds the buffer a legalJSON keeps in the pool.
const maxLegalJSON = 64 << 10

// free gives j back (nil: nothing).
func (j *legalJSON) free() {
	if j == nil {
		return
	}
	j.b, j.runs, j.n = j.b[:0], j.runs[:0], 0
	if cap(j.b) <= maxLegalJSON {
		legalJSONs.Put(j)
	}
}

func (j *legalJSON) add(seat sdk.Seat, json []byte) {
	n := len(j.runs)
	if n > 0 && j.runs[n-1].seat == seat {
		j.b = append(j.b, ',')
	} else {
		j.runs = append(j.runs, legalRun{seat: seat, start: len(j.b)})
		n++
	}
	j.b = append(j.b, json...)
	j.runs[n-1].end = len(j.b)
	j.n++
}

// appendFor appends `,"legal":` and seat's moves.
func (j *legalJSON) appendFor(b []byte, seat sdk.Seat) []byte {
	b = append(b, `,"legal":[`...)
	first := true
	for _, r := range j.runs {
		if r.seat != seat {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, j.b[r.start:r.end]...)
	}
	return append(b, ']')
}
