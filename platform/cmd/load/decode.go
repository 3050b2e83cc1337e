package main

import (
	"encoding/json"
	"strconv"
	"strings"
)

// The load generator runs on the same cores as the server, and decoding
// every event with encoding/json was most of its ~100 µs per move: a move
// event carries the 81-cell board and, to the seat to move, every legal
// move. decodeEvent reads only the fields a player uses and skips the rest
// without building it; anything it does not expect (an escaped string, a
// number that is not an integer, a field of the wrong type) sends the whole
// message to encoding/json instead, so the two read the same events the
// same way (TestDecodeEventIsJSON).

// decodeEvent reads a server message into ev.
func decodeEvent(b []byte, ev *event) error {
	d := evScanner{b: b}
	if d.event(ev) && d.end() {
		return nil
	}
	*ev = event{}
	return json.Unmarshal(b, ev)
}

// evScanner reads JSON for decodeEvent; ok turns false at the first
// thing it does not handle, and every method does nothing from then on.
type evScanner struct {
	b  []byte
	i  int
	ok bool
}

func (d *evScanner) ws() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\n' || d.b[d.i] == '\t' || d.b[d.i] == '\r') {
		d.i++
	}
}

func (d *evScanner) peek() byte {
	d.ws()
	if d.i >= len(d.b) {
		d.ok = false
		return 0
	}
	return d.b[d.i]
}

func (d *evScanner) expect(c byte) {
	if d.ok && d.peek() == c {
		d.i++
		return
	}
	d.ok = false
}

func (d *evScanner) end() bool {
	d.ws()
	return d.ok && d.i == len(d.b)
}

// str reads a string without escapes (every text a player reads here).
func (d *evScanner) str() string {
	if !d.ok || d.peek() != '"' {
		d.ok = false
		return ""
	}
	start := d.i + 1
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			d.i = j + 1
			return string(d.b[start:j])
		case c == '\\' || c < 0x20 || c >= 0x80:
			d.ok = false // escapes and non-ASCII: encoding/json's job
			return ""
		}
	}
	d.ok = false
	return ""
}

func (d *evScanner) int() int64 {
	if !d.ok {
		return 0
	}
	d.ws()
	j := d.i
	if j < len(d.b) && d.b[j] == '-' {
		j++
	}
	digits := j
	for j < len(d.b) && d.b[j] >= '0' && d.b[j] <= '9' {
		j++
	}
	if j-digits > 1 && d.b[digits] == '0' {
		d.ok = false // a leading zero is not JSON
		return 0
	}
	n, err := strconv.ParseInt(string(d.b[d.i:j]), 10, 64)
	if err != nil || j < len(d.b) && (d.b[j] == '.' || d.b[j] == 'e' || d.b[j] == 'E') {
		d.ok = false
		return 0
	}
	d.i = j
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

// skip passes over one value of any kind.
func (d *evScanner) skip() {
	if !d.ok {
		return
	}
	switch d.peek() {
	case '"':
		for j := d.i + 1; j < len(d.b); j++ {
			switch c := d.b[j]; {
			case c == '\\':
				if j+1 >= len(d.b) || !strings.ContainsRune(`"\\/bfnrtu`, rune(d.b[j+1])) {
					d.ok = false
					return
				}
				j++
				if d.b[j] == 'u' {
					if j+4 >= len(d.b) || !isHex4(d.b[j+1:j+5]) {
						d.ok = false
						return
					}
					j += 4
				}
			case c == '"':
				d.i = j + 1
				return
			case c < 0x20:
				d.ok = false
				return
			}
		}
		d.ok = false
	case '{':
		d.object(func(string) { d.skip() })
	case '[':
		d.array(d.skip)
	case 't', 'f':
		d.bool()
	case 'n':
		if !d.null() {
			d.ok = false
		}
	default:
		d.int()
	}
}

// object reads an object, calling field for each key with the scanner at
// its value.
func (d *evScanner) object(field func(key string)) {
	d.expect('{')
	if d.ok && d.peek() == '}' {
		d.i++
		return
	}
	for d.ok {
		k := d.str()
		d.expect(':')
		if !d.ok {
			return
		}
		field(k)
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return
		default:
			d.ok = false
		}
	}
}

func (d *evScanner) array(elem func()) {
	d.expect('[')
	if d.ok && d.peek() == ']' {
		d.i++
		return
	}
	for d.ok {
		elem()
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return
		default:
			d.ok = false
		}
	}
}

func (d *evScanner) event(ev *event) bool {
	d.ok = true
	// A repeated object or array key is encoding/json's: it decodes the
	// second into what the first made, merging them.
	seen := map[string]bool{}
	once := func(k string) bool {
		if seen[k] {
			d.ok = false
			return false
		}
		seen[k] = true
		return true
	}
	d.object(func(k string) {
		switch k {
		case "type":
			ev.Type = d.str()
		case "version":
			ev.Version = d.int()
		case "id":
			ev.ID = d.str()
		case "code":
			ev.Code = d.str()
		case "message":
			ev.Message = d.str()
		case "duplicate":
			ev.Duplicate = d.bool()
		case "view":
			if !once(k) {
				return
			}
			if d.null() {
				ev.View = nil
				return
			}
			ev.View = &eventView{}
			d.view(ev.View, once)
		case "newRound":
			if !once(k) {
				return
			}
			if d.null() {
				ev.NewRound = nil
				return
			}
			ev.NewRound = &eventNewRound{}
			d.object(func(k string) {
				if k == "by" {
					ev.NewRound.By = int(d.int())
					return
				}
				d.other(k, "by")
			})
		default:
			d.other(k, "type", "version", "id", "code", "message", "duplicate", "view", "newRound")
		}
	})
	return d.ok
}

// other skips the value of an unknown key; a key that differs from a known
// one only in case is encoding/json's (it matches keys that way).
func (d *evScanner) other(k string, known ...string) {
	for _, n := range known {
		if strings.EqualFold(k, n) {
			d.ok = false
			return
		}
	}
	d.skip()
}

func (d *evScanner) view(v *eventView, once func(string) bool) {
	d.object(func(k string) {
		switch k {
		case "ply":
			v.Ply = int(d.int())
		case "status":
			v.Status = d.str()
		case "toMove":
			if !once("view." + k) {
				return
			}
			if d.null() {
				v.ToMove = nil
				return
			}
			v.ToMove = []int{}
			d.array(func() { v.ToMove = append(v.ToMove, int(d.int())) })
		case "legal":
			if !once("view." + k) {
				return
			}
			if d.null() {
				v.Legal = nil
				return
			}
			v.Legal = []eventLegal{}
			d.array(func() {
				var l eventLegal
				d.object(func(k string) {
					switch k {
					case "kind":
						l.Kind = d.str()
					case "move":
						l.Move = d.str()
					default:
						d.other(k, "kind", "move")
					}
				})
				v.Legal = append(v.Legal, l)
			})
		default:
			d.other(k, "ply", "status", "toMove", "legal")
		}
	})
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
