package wire

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/banmen/banmen/sdk"
)

// A room sends the seat to move its legal moves as JSON, exactly as
// encoding/json writes each sdk.LegalMove. Unpacking a packed move into a
// LegalMove, its strings checked for UTF-8, and then encoding that
// LegalMove read every text twice and wrote every field twice: a tenth of
// the host's CPU per move. CheckLegalJSON reads a packed list once and
// writes each move's JSON as it goes, checking each text while it copies
// it.

// EachJSON is called with each legal move of a list as it is checked: the
// move's seat, and its JSON as json.Marshal writes the sdk.LegalMove.
// json is valid only during the call.
type EachJSON = func(seat sdk.Seat, json []byte)

// CheckLegalJSON is CheckLegal calling each with every move's JSON, the
// move read whole, before the rest of the list is checked.
func CheckLegalJSON(s string, each EachJSON) (int, error) {
	u := &unpacker{s: s}
	n := u.count(10)
	b := jsonScratch.Get().(*[]byte)
	defer func() {
		if cap(*b) <= maxJSONScratch {
			jsonScratch.Put(b)
		}
	}()
	for i := 0; i < n && u.err == nil; i++ {
		seat, js := u.legalJSON((*b)[:0])
		*b = js
		if u.err == nil {
			each(seat, js)
		}
	}
	if err := u.end(); err != nil {
		return 0, err
	}
	return n, nil
}

// maxJSONScratch bounds the buffer jsonScratch keeps (a huge text is not
// kept).
const maxJSONScratch = 4 << 10

// jsonScratch holds the buffer one move's JSON is written in.
var jsonScratch = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// legalJSON reads one move as legal does and appends its JSON to b, the
// fields in sdk.LegalMove's order, the omitempty ones left out when empty.
func (u *unpacker) legalJSON(b []byte) (sdk.Seat, []byte) {
	seat := u.int()
	b = appendSmallInt(append(b, `{"seat":`...), seat)
	b = u.jsonStr(append(b, `,"kind":`...))
	b = u.jsonStr(append(b, `,"move":`...))
	b = u.jsonStr(append(b, `,"text":`...))
	b = u.jsonStrOmit(b, `,"alt":`)
	b = appendSmallInt(append(b, `,"from":`...), u.int())
	b = appendSmallInt(append(b, `,"to":`...), u.int())
	b = u.jsonStrOmit(b, `,"drop":`)
	if u.flags(1)&1 != 0 {
		b = append(b, `,"promote":true`...)
	}
	b = u.jsonStrOmit(b, `,"key":`)
	return sdk.Seat(seat), append(b, '}')
}

// appendSmallInt is strconv.AppendInt with the numbers of a legal move (a
// seat, a cell index, -1) written without its call.
func appendSmallInt(b []byte, v int) []byte {
	switch {
	case v >= 0 && v < 10:
		return append(b, byte('0'+v))
	case v >= 10 && v < 100:
		return append(b, byte('0'+v/10), byte('0'+v%10))
	case v == -1:
		return append(b, '-', '1')
	}
	return strconv.AppendInt(b, int64(v), 10)
}

// jsonStrOmit is jsonStr after key, or nothing for an empty string.
func (u *unpacker) jsonStrOmit(b []byte, key string) []byte {
	if i := u.i; i < len(u.s) && u.s[i] == 0 { // a one-byte length of 0
		u.i++
		return b
	}
	return u.jsonStr(append(b, key...))
}

// jsonStr reads a string as str does, failing on invalid UTF-8, and appends
// it quoted as encoding/json quotes it. Printable ASCII other than
// " \ < > & and three-byte characters other than U+2028 and U+2029 (the
// texts of shogi and xiangqi) are copied as they are; a string holding
// anything else is checked by utf8.ValidString and quoted by encoding/json.
func (u *unpacker) jsonStr(b []byte) []byte {
	n, ok := u.short()
	if !ok {
		n = u.uvarint()
	}
	if u.err != nil {
		return b
	}
	if n > uint64(len(u.s)-u.i) {
		u.fail("truncated string")
		return b
	}
	s := u.s[u.i : u.i+int(n)]
	u.i += int(n)
	for i := 0; i < len(s); {
		c := s[i]
		if plainJSON[c] {
			i++
			continue
		}
		// A three-byte character whose lead byte needs no check of the
		// second (most of Japanese and Chinese, and the marks ☗☖▲△):
		// valid when both bytes after it are continuation bytes. Of these,
		// only U+2028 and U+2029 (E2 80 A8, E2 80 A9) are escaped.
		if c >= 0xe1 && c <= 0xef && c != 0xed && i+2 < len(s) &&
			s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 &&
			(c != 0xe2 || s[i+1] != 0x80 || s[i+2]&^1 != 0xa8) {
			i += 3
			continue
		}
		if !utf8.ValidString(s[i:]) {
			u.fail("string is not valid UTF-8")
			return b
		}
		q, _ := json.Marshal(s) // a string always marshals
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plainJSON are the bytes encoding/json copies as they are in a string:
// printable ASCII other than " \ < > &.
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune(`"\<>&`, rune(c))
	}
	return t
}()
