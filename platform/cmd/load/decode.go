package main

import (
	"encoding/json"
	"unicode/utf8"
)

// The load generator runs on the same cores as the server, so every
// microsecond it spends per move is taken from the server. A move event
// carries the 81-cell board and, to the seat to move, every legal move
// with its texts: decoding it with encoding/json was most of the
// generator's CPU, and a scanner that built a string for every key and
// value it then skipped still spent ~40% of it. decodeEvent reads only
// what a player uses, into an event the seat reuses: it allocates nothing
// for a skipped value, keys are compared as bytes, known texts (event
// types, statuses) are constants, and of the legal list it copies only
// the "move" of each board move and drop into one buffer (the player
// allocates none of them: it copies the one it picks into its request).
//
// Anything it does not expect (an escape or a control byte in a string it
// reads, a number that is not an integer where it reads one, a field of
// the wrong type, a repeated object, a key that differs from a known one
// only in case, whitespace other than spaces, nesting deeper than
// 64) sends the whole message to encoding/json instead, so the two
// read the same messages the same way (TestDecodeEventIsJSON,
// FuzzDecodeEvent).

// event is what a player needs of a server message. A seat decodes every
// message into its own event, so an event is valid until the seat's next
// read; ID even aliases the message.
type event struct {
	Type      string
	Version   int64
	ID        []byte // the answered request's id
	Code      string
	Message   string
	Duplicate bool
	HasView   bool
	View      eventView
	NewRound  bool // a new round is pending (newRound is not null)
	By        int  // who asked for it
}

// eventView is what a player reads of a View.
type eventView struct {
	Ply    int
	Status string
	ToMove []int
	Moves  moveList // the legal board moves and drops (actions left out)
}

// moveList is a list of moves' texts, one after another in b, the i-th
// ending at end[i]. Its buffers are reused from one View to the next.
type moveList struct {
	b   []byte
	end []int32
}

func (m *moveList) len() int { return len(m.end) }

// at is the i-th move; it aliases the list.
func (m *moveList) at(i int) []byte {
	lo := int32(0)
	if i > 0 {
		lo = m.end[i-1]
	}
	return m.b[lo:m.end[i]]
}

func (m *moveList) add(s []byte) {
	m.b = append(m.b, s...)
	m.end = append(m.end, int32(len(m.b)))
}

func (m *moveList) reset() { m.b, m.end = m.b[:0], m.end[:0] }

// reset empties ev, keeping its buffers.
func (ev *event) reset() {
	toMove, moves := ev.View.ToMove[:0], ev.View.Moves
	moves.reset()
	*ev = event{}
	ev.View.ToMove, ev.View.Moves = toMove, moves
}

// decodeEvent reads a server message into ev.
func decodeEvent(b []byte, ev *event) error {
	if fastDecode(b, ev) {
		return nil
	}
	ev.reset()
	var j jsonEvent
	err := json.Unmarshal(b, &j)
	j.into(ev)
	return err
}

// fastDecode is decodeEvent without encoding/json: false when the message
// is one for encoding/json (ev is then partly filled).
func fastDecode(b []byte, ev *event) bool {
	ev.reset()
	d := evScanner{b: b, ok: true}
	d.event(ev)
	return d.end()
}

// jsonEvent is an event as encoding/json reads it: the fallback, and the
// reference of the tests.
type jsonEvent struct {
	Type      string         `json:"type"`
	Version   int64          `json:"version"`
	ID        string         `json:"id"`
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Duplicate bool           `json:"duplicate"`
	View      *jsonView      `json:"view"`
	NewRound  *eventNewRound `json:"newRound"`
}

type jsonView struct {
	Ply    int         `json:"ply"`
	Status string      `json:"status"`
	ToMove []int       `json:"toMove"`
	Legal  []jsonLegal `json:"legal"`
}

type jsonLegal struct {
	Kind string `json:"kind"`
	Move string `json:"move"`
}

type eventNewRound struct {
	By int `json:"by"`
}

// into writes j into ev (which reset emptied).
func (j *jsonEvent) into(ev *event) {
	ev.Type, ev.Version, ev.Code, ev.Message, ev.Duplicate = j.Type, j.Version, j.Code, j.Message, j.Duplicate
	if j.ID != "" {
		ev.ID = []byte(j.ID)
	}
	if v := j.View; v != nil {
		ev.HasView = true
		ev.View.Ply, ev.View.Status = v.Ply, v.Status
		ev.View.ToMove = append(ev.View.ToMove, v.ToMove...)
		for _, l := range v.Legal {
			if l.Kind != "action" {
				ev.View.Moves.add([]byte(l.Move))
			}
		}
	}
	if j.NewRound != nil {
		ev.NewRound, ev.By = true, j.NewRound.By
	}
}

// evScanner reads JSON for decodeEvent; ok turns false at the first
// thing it does not handle, and every method does nothing useful from
// then on (each loop ends).
type evScanner struct {
	b    []byte
	i    int
	ok   bool
	seen uint8 // the objects and arrays read so far (a repeat is encoding/json's: it merges them)
}

const (
	seenView = 1 << iota
	seenNewRound
	seenToMove
	seenLegal
)

// once marks an object or array key as read; false (and not ok) on a
// repeat.
func (d *evScanner) once(bit uint8) bool {
	if d.seen&bit != 0 {
		d.ok = false
		return false
	}
	d.seen |= bit
	return true
}

// ws passes spaces; other whitespace is encoding/json's (a server never
// sends any).
func (d *evScanner) ws() {
	for d.i < len(d.b) && d.b[d.i] == ' ' {
		d.i++
	}
}

func (d *evScanner) end() bool {
	d.ws()
	return d.ok && d.i == len(d.b)
}

// begin reads the opening bracket open and says whether a member follows
// (false after an empty object or array, its close read, or on an error).
func (d *evScanner) begin(open, close byte) bool {
	d.ws()
	if !d.ok || d.i >= len(d.b) || d.b[d.i] != open {
		d.ok = false
		return false
	}
	d.i++
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == close {
		d.i++
		return false
	}
	return true
}

// more reads the comma after a member (true) or the close (false).
func (d *evScanner) more(close byte) bool {
	d.ws()
	if !d.ok || d.i >= len(d.b) {
		d.ok = false
		return false
	}
	switch d.b[d.i] {
	case ',':
		d.i++
		return true
	case close:
		d.i++
		return false
	}
	d.ok = false
	return false
}

// Bytes that end a plain run in a string: for values, the quote, the
// backslash and control bytes; for keys, also every non-ASCII byte
// (encoding/json folds some letters of other scripts onto ASCII keys).
var valueStop, keyStop [256]bool

func init() {
	for c := range 256 {
		stop := c == '"' || c == '\\' || c < 0x20
		valueStop[c] = stop
		keyStop[c] = stop || c >= 0x80
	}
}

// plain reads a string without escapes or control bytes and returns its
// bytes (aliasing the message).
func (d *evScanner) plain() []byte {
	b, i := d.b, d.i
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if !d.ok || i >= len(b) || b[i] != '"' {
		d.ok = false
		return nil
	}
	j := i + 1
	for j < len(b) && !valueStop[b[j]] {
		j++
	}
	if j >= len(b) || b[j] != '"' {
		d.ok = false
		return nil
	}
	d.i = j + 1
	return b[i+1 : j]
}

// key reads an object key (plain ASCII) and its colon.
func (d *evScanner) key() []byte {
	b, i := d.b, d.i
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if !d.ok || i >= len(b) || b[i] != '"' {
		d.ok = false
		return nil
	}
	j := i + 1
	for j < len(b) && !keyStop[b[j]] {
		j++
	}
	if j >= len(b) || b[j] != '"' {
		d.ok = false
		return nil
	}
	k := b[i+1 : j]
	j++
	for j < len(b) && b[j] == ' ' {
		j++
	}
	if j >= len(b) || b[j] != ':' {
		d.ok = false
		return nil
	}
	d.i = j + 1
	return k
}

// text reads a string value a player keeps: a known one is a constant,
// another is allocated. Invalid UTF-8 is encoding/json's (it replaces it).
func (d *evScanner) text() string {
	s := d.plain()
	if !d.ok {
		return ""
	}
	if k, ok := known(s); ok {
		return k
	}
	if !utf8.Valid(s) {
		d.ok = false
		return ""
	}
	return string(s)
}

// known returns the constant for the texts every move brings.
func known(s []byte) (string, bool) {
	switch string(s) {
	case "move":
		return "move", true
	case "ack":
		return "ack", true
	case "presence":
		return "presence", true
	case "refused":
		return "refused", true
	case "round":
		return "round", true
	case "request":
		return "request", true
	case "accept":
		return "accept", true
	case "playing":
		return "playing", true
	case "over":
		return "over", true
	case "":
		return "", true
	}
	return "", false
}

// int reads an integer of at most 18 digits (longer ones, and fractions
// and exponents, are encoding/json's).
func (d *evScanner) int() int64 {
	d.ws()
	if !d.ok {
		return 0
	}
	j, neg := d.i, false
	if j < len(d.b) && d.b[j] == '-' {
		neg = true
		j++
	}
	start := j
	var n int64
	for j < len(d.b) && '0' <= d.b[j] && d.b[j] <= '9' {
		n = n*10 + int64(d.b[j]-'0')
		j++
	}
	digits := j - start
	if digits == 0 || digits > 18 || digits > 1 && d.b[start] == '0' ||
		j < len(d.b) && (d.b[j] == '.' || d.b[j] == 'e' || d.b[j] == 'E') {
		d.ok = false
		return 0
	}
	d.i = j
	if neg {
		n = -n
	}
	return n
}

func (d *evScanner) literal(lit string) bool {
	d.ws()
	if d.ok && len(d.b)-d.i >= len(lit) && string(d.b[d.i:d.i+len(lit)]) == lit {
		d.i += len(lit)
		return true
	}
	return false
}

func (d *evScanner) bool() bool {
	switch {
	case d.literal("true"):
		return true
	case d.literal("false"):
		return false
	}
	d.ok = false
	return false
}

// null reads a null if one is next.
func (d *evScanner) null() bool { return d.literal("null") }

// skip passes over one value of any kind, checking its grammar as
// encoding/json does, in one loop over local variables (the board, most of
// a move event's bytes, is one such value). open has a bit per container
// it is in, set for an object; deeper than 64 is encoding/json's.
func (d *evScanner) skip() {
	if !d.ok {
		return
	}
	b, i := d.b, d.i
	var open uint64
	depth := 0
	var ok bool
value:
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i >= len(b) {
		goto fail
	}
	switch b[i] {
	case '"':
		j := i + 1
		for j < len(b) && !valueStop[b[j]] {
			j++
		}
		if j < len(b) && b[j] == '"' {
			i = j + 1
		} else if i, ok = skipString(b, i); !ok {
			goto fail
		}
		goto after
	case '{', '[':
		if depth++; depth > 64 {
			goto fail
		}
		obj := b[i] == '{'
		open <<= 1
		if obj {
			open |= 1
		}
		i++
		for i < len(b) && b[i] == ' ' {
			i++
		}
		if i < len(b) && (obj && b[i] == '}' || !obj && b[i] == ']') {
			i++
			open >>= 1
			depth--
			goto after
		}
		if obj {
			goto key
		}
		goto value
	case 't':
		if len(b)-i < 4 || string(b[i:i+4]) != "true" {
			goto fail
		}
		i += 4
		goto after
	case 'f':
		if len(b)-i < 5 || string(b[i:i+5]) != "false" {
			goto fail
		}
		i += 5
		goto after
	case 'n':
		if len(b)-i < 4 || string(b[i:i+4]) != "null" {
			goto fail
		}
		i += 4
		goto after
	}
	// A number; the common ones, small integers, here.
	{
		j := i
		if b[j] == '-' {
			j++
		}
		k := j
		for k < len(b) && '0' <= b[k] && b[k] <= '9' {
			k++
		}
		if k > j && (k == j+1 || b[j] != '0') && (k == len(b) || b[k] != '.' && b[k] != 'e' && b[k] != 'E') {
			i = k
			goto after
		}
	}
	if i, ok = skipNumber(b, i); !ok {
		goto fail
	}
	goto after
key:
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i >= len(b) || b[i] != '"' {
		goto fail
	}
	{
		j := i + 1
		for j < len(b) && !valueStop[b[j]] {
			j++
		}
		if j < len(b) && b[j] == '"' {
			i = j + 1
		} else if i, ok = skipString(b, i); !ok {
			goto fail
		}
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i >= len(b) || b[i] != ':' {
		goto fail
	}
	i++
	goto value
after:
	if depth == 0 {
		d.i = i
		return
	}
	for i < len(b) && b[i] == ' ' {
		i++
	}
	if i >= len(b) {
		goto fail
	}
	switch b[i] {
	case ',':
		i++
		if open&1 != 0 {
			goto key
		}
		goto value
	case '}', ']':
		if (b[i] == '}') != (open&1 != 0) {
			goto fail
		}
		i++
		open >>= 1
		depth--
		goto after
	}
fail:
	d.ok = false
}

// skipString passes over the string at b[i], escapes included (checked
// as encoding/json does), and returns the index after it.
func skipString(b []byte, i int) (int, bool) {
	j := i + 1
	for {
		for j < len(b) && !valueStop[b[j]] {
			j++
		}
		if j >= len(b) || b[j] < 0x20 {
			return j, false
		}
		if b[j] == '"' {
			return j + 1, true
		}
		// A backslash.
		if j+1 >= len(b) {
			return j, false
		}
		switch b[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j += 2
		case 'u':
			if j+5 >= len(b) || !isHex4(b[j+2:j+6]) {
				return j, false
			}
			j += 6
		default:
			return j, false
		}
	}
}

// skipNumber passes over the JSON number at b[i]:
// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(b []byte, i int) (int, bool) {
	digits := func() int {
		s := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i - s
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	start := i
	if n := digits(); n == 0 || n > 1 && b[start] == '0' {
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return i, false
		}
	}
	return i, true
}

func (d *evScanner) event(ev *event) {
	for more := d.begin('{', '}'); more; more = d.more('}') {
		k := d.key()
		switch string(k) {
		case "type":
			ev.Type = d.text()
		case "version":
			ev.Version = d.int()
		case "id":
			if ev.ID = d.plain(); !utf8.Valid(ev.ID) {
				d.ok = false // encoding/json replaces it
			}
		case "code":
			ev.Code = d.text()
		case "message":
			ev.Message = d.text()
		case "duplicate":
			ev.Duplicate = d.bool()
		case "view":
			if !d.once(seenView) || d.null() {
				ev.HasView = false
				continue
			}
			ev.HasView = true
			d.view(&ev.View)
		case "newRound":
			if !d.once(seenNewRound) || d.null() {
				ev.NewRound = false
				continue
			}
			ev.NewRound = true
			for more := d.begin('{', '}'); more; more = d.more('}') {
				if k := d.key(); string(k) == "by" {
					ev.By = int(d.int())
				} else {
					d.other(k, "by")
				}
			}
		default:
			d.other(k, "type", "version", "id", "code", "message", "duplicate", "view", "newRound")
		}
	}
}

// other skips the value of an unknown key; a key that differs from a known
// one only in case is encoding/json's (it matches keys that way).
func (d *evScanner) other(k []byte, names ...string) {
	for _, n := range names {
		if foldEqual(k, n) {
			d.ok = false
			return
		}
	}
	d.skip()
}

// foldEqual compares an ASCII key with a name ignoring case.
func foldEqual(k []byte, name string) bool {
	if len(k) != len(name) {
		return false
	}
	for i := range len(k) {
		c, n := k[i], name[i]
		if c == n {
			continue
		}
		if l := c | 0x20; l != n|0x20 || l < 'a' || l > 'z' {
			return false
		}
	}
	return true
}

func (d *evScanner) view(v *eventView) {
	for more := d.begin('{', '}'); more; more = d.more('}') {
		k := d.key()
		switch string(k) {
		case "ply":
			v.Ply = int(d.int())
		case "status":
			v.Status = d.text()
		case "toMove":
			if !d.once(seenToMove) || d.null() {
				continue
			}
			for more := d.begin('[', ']'); more; more = d.more(']') {
				v.ToMove = append(v.ToMove, int(d.int()))
			}
		case "legal":
			if !d.once(seenLegal) || d.null() {
				continue
			}
			for more := d.begin('[', ']'); more; more = d.more(']') {
				var kind, move []byte
				for more := d.begin('{', '}'); more; more = d.more('}') {
					k := d.key()
					switch string(k) {
					case "kind":
						kind = d.plain()
					case "move":
						move = d.plain()
						if !utf8.Valid(move) {
							d.ok = false // encoding/json replaces it
						}
					case "seat", "text", "alt", "from", "to", "drop", "promote", "key":
						d.skip() // not one that differs from kind or move only in case
					default:
						d.other(k, "kind", "move")
					}
				}
				if string(kind) != "action" {
					v.Moves.add(move)
				}
			}
		default:
			d.other(k, "ply", "status", "toMove", "legal")
		}
	}
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
