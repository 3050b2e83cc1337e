package wire

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// marshalEach is each move as json.Marshal writes it.
func marshalEach(moves []sdk.LegalMove) []string {
	var out []string
	for _, m := range moves {
		js, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		out = append(out, string(js))
	}
	return out
}

// jsonTexts are texts for every path of jsonStr: plain ASCII, the
// three-byte characters copied as they are, those escaped, other widths,
// control characters, HTML-escaped bytes, quotes and backslashes.
var jsonTexts = []string{"", "7g7f", "▲７六歩", "▲同　角", "帥五平四", "炮二平五", "S*5e",
	"a\u2028b", "\u2029", "é", "😀 mate", "tab\there", "nul\x00", "\x7f", `quote"`, `back\slash`,
	"<b>&amp;</b>", "☗☖▲△", "\u2027\u202a", "ｱ", "\uffff", "ﾟ", "x\u00a0y"}

// CheckLegalJSON writes each move as json.Marshal writes the LegalMove
// UnpackLegal reads, for texts that take every path of its quoting.
func TestLegalJSONIsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return jsonTexts[r.IntN(len(jsonTexts))] }
	for range 2000 {
		var moves []sdk.LegalMove
		for range 1 + r.IntN(8) {
			moves = append(moves, sdk.LegalMove{Seat: sdk.Seat(r.IntN(5) - 1), Kind: sdk.MoveKind(pick()),
				Move: sdk.Move(pick()), Text: pick(), Alt: pick(), From: r.IntN(400) - 200, To: r.IntN(1 << 20),
				Drop: pick(), Promote: r.IntN(2) == 0, Key: pick()})
		}
		b, err := PackLegal(moves)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		var seats []sdk.Seat
		n, err := CheckLegalJSON(string(b), func(seat sdk.Seat, js []byte) {
			got, seats = append(got, string(js)), append(seats, seat)
		})
		if err != nil || n != len(moves) {
			t.Fatalf("%+v: %d moves, %v", moves, n, err)
		}
		if want := marshalEach(moves); !slices.Equal(got, want) {
			t.Fatalf("CheckLegalJSON\n%q\njson.Marshal\n%q", got, want)
		}
		for i, m := range moves {
			if seats[i] != m.Seat {
				t.Fatalf("move %d: seat %d, want %d", i, seats[i], m.Seat)
			}
		}
	}
}

// A text that is not UTF-8 fails the list, as CheckLegal fails it, wherever
// it is in the text.
func TestLegalJSONRefusesBadUTF8(t *testing.T) {
	good, err := PackLegal([]sdk.LegalMove{{Move: "7g7f", Text: "▲７六歩"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\xff", "▲\xe7\xa7", "a\xed\xa0\x80", "\xe0\x80\x80", "▲７\x80", "\xf0\x9f\x98"} {
		// The same list with the text swapped for bad (same length field
		// rewritten), packed by hand as PackLegal refuses it.
		s := strings.Replace(string(good), "\x0c▲７六歩", string(rune(len(bad)))+bad, 1)
		if s == string(good) {
			t.Fatal("the text was not found in the packed move")
		}
		_, cerr := CheckLegal(s)
		_, jerr := CheckLegalJSON(s, func(sdk.Seat, []byte) {})
		if cerr == nil || jerr == nil {
			t.Errorf("text %q: CheckLegal %v, CheckLegalJSON %v; want both to fail", bad, cerr, jerr)
		}
	}
}
