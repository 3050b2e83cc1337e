package rules

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestParseFENGood(t *testing.T) {
	tests := []struct{ in, want string }{
		{StartFEN, StartFEN},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", StartFEN},
		{"rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1", StartFEN},
		{"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR r 0 1", StartFEN},
		{"  rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR\tw  -  -  0 1 ", StartFEN},
		{"3k5/R8/9/9/9/9/9/9/9/4K4 b - - 17 40", "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 17 40"},
		{perftTable[1].fen, perftTable[1].fen},
	}
	for _, tc := range tests {
		p, err := ParseFEN(tc.in)
		if err != nil {
			t.Errorf("ParseFEN(%q): %v", tc.in, err)
			continue
		}
		if got := p.FEN(); got != tc.want {
			t.Errorf("ParseFEN(%q).FEN() = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseFENBad(t *testing.T) {
	start := "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"
	tests := []struct{ name, in, msg string }{
		{"empty", "", "empty"},
		{"no side", start, "fields"},
		{"five fields", start + " w - 0 1", "fields"},
		{"seven fields", start + " w - - 0 1 x", "fields"},
		{"bad unused field", start + " w x - 0 1", "must be"},
		{"bad side", start + " x", "side"},
		{"nine ranks", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "ranks"},
		{"short rank", "rnbakabn/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "points"},
		{"long rank", "rnbakabnr1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "longer"},
		{"two digits", "rnbakabnr/45/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "two digits"},
		{"zero", "rnbakabnr/09/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "not a piece"},
		{"bad letter", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNQ w", "not a piece"},
		{"no red general", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w", "no general"},
		{"two generals", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBAKABNR w", "more than 1"},
		{"general out of the palace", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w", "no general"},
		{"general on c0", "4k4/9/9/9/9/9/9/9/9/2K6 w", "cannot stand"},
		{"advisor off its points", "4k4/9/9/9/9/9/9/9/3A5/3K5 w", "advisor cannot"},
		{"elephant across the river", "4k4/9/9/9/2B6/9/9/9/9/3K5 w", "elephant cannot"},
		{"soldier behind its start", "4k4/9/9/9/9/9/9/4P4/9/3K5 w", "soldier cannot"},
		{"soldier off its file before the river", "4k4/9/9/9/9/1P7/9/9/9/3K5 w", "soldier cannot"},
		{"six soldiers", "4k4/9/9/9/PPPPPP3/9/9/9/9/3K5 w", "more than 5"},
		{"three chariots", "4k4/9/9/9/RRR6/9/9/9/9/3K5 w", "more than 2"},
		{"seventeen pieces", "rnbakabnr/9/1c5c1/p1p1p1p1p/4P4/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "16 pieces"},
		{"facing generals", "4k4/9/9/9/9/9/9/9/9/4K4 w", "not to move is in check"},
		{"side not to move in check", "4k4/4R4/9/9/9/9/9/9/9/3K5 w", "not to move is in check"},
		{"clock not a number", start + " w - - x 1", "not a number"},
		{"negative clock", start + " w - - -1 1", "not a number"},
		{"signed clock", start + " w - - +1 1", "not a number"},
		{"leading zero", start + " w - - 01 1", "not a number"},
		{"clock too big", start + " w - - 121 1", "outside"},
		{"move zero", start + " w - - 0 0", "outside"},
		{"huge move", start + " w - - 0 99999999999999999999", "not a number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFEN(tc.in)
			re, ok := sdk.AsRuleError(err)
			if !ok || re.Code != sdk.CodeBadPosition {
				t.Fatalf("ParseFEN(%q) = %v, want a bad_position RuleError", tc.in, err)
			}
			if !strings.Contains(re.Message, tc.msg) {
				t.Errorf("ParseFEN(%q): message %q does not say %q", tc.in, re.Message, tc.msg)
			}
		})
	}
}

// FuzzFEN checks that no text makes the parser panic, and that an accepted
// FEN prints to a FEN that parses to the same print (parse → print → parse).
func FuzzFEN(f *testing.F) {
	for _, s := range []string{StartFEN, perftTable[1].fen, "3k5/R8/9/9/9/9/9/9/9/4K4 b - - 17 40",
		"rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w", "4k4/9/9/9/9/9/9/9/9/4K4 w",
		"", "w", "9/9/9/9/9/9/9/9/9/9 b - - 0 1", "4k4/9/PPPPPRRNN/NCC6/9/9/9/9/9/3K5 w"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseFEN(s)
		if err != nil {
			if _, ok := sdk.AsRuleError(err); !ok {
				t.Fatalf("ParseFEN(%q): %v is not a RuleError", s, err)
			}
			return
		}
		out := p.FEN()
		q, err := ParseFEN(out)
		if err != nil {
			t.Fatalf("ParseFEN(%q) printed %q, which does not parse: %v", s, out, err)
		}
		if again := q.FEN(); again != out || !samePosition(p, q) {
			t.Fatalf("ParseFEN(%q): print %q, reprint %q", s, out, again)
		}
		p.LegalMoves() // a validated position must be safe to generate from
	})
}
