package rules

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestSFENErrors(t *testing.T) {
	tests := []struct {
		sfen string
		code string
	}{
		{"", CodeSFENFields},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b -  1", CodeSFENFields},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1 b - 1", CodeSFENBoard},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN b - 1", CodeSFENBoard},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNLL b - 1", CodeSFENBoard},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNX b - 1", CodeSFENBoard},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNS+GKGSNL b - 1", CodeSFENBoard},
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSN+ b - 1", CodeSFENBoard},
		{"lnsgkgsnl/1r5b1/ppppppppp/45/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1", CodeSFENBoard},
		{StartSFEN[:len(StartSFEN)-6] + " x - 1", CodeSFENSide},
		{strings.Replace(StartSFEN, " - ", " 0P ", 1), CodeSFENHand},
		{strings.Replace(StartSFEN, " - ", " K ", 1), CodeSFENHand},
		{strings.Replace(StartSFEN, " - ", " PP ", 1), CodeSFENHand},
		{strings.Replace(StartSFEN, " - ", " 2 ", 1), CodeSFENHand},
		{strings.Replace(StartSFEN, " - ", "  ", 1), CodeSFENHand},
		{strings.Replace(StartSFEN, " 1", " 0", 1), CodeSFENMoveNum},
		{strings.Replace(StartSFEN, " 1", " -3", 1), CodeSFENMoveNum},
		{strings.Replace(StartSFEN, " 1", " 01", 1), CodeSFENMoveNum},
		{strings.Replace(StartSFEN, " 1", " x", 1), CodeSFENMoveNum},
		// Well-formed but impossible.
		{strings.Replace(StartSFEN, " - ", " P ", 1), CodeIllegalPos},                         // 19 pawns
		{"4k4/9/9/9/9/9/9/9/4K4 b 3R 1", CodeIllegalPos},                                      // 3 rooks
		{"4k4/9/9/9/9/9/9/9/K3K4 b - 1", CodeIllegalPos},                                      // two kings
		{"P3k4/9/9/9/9/9/9/9/4K4 b - 1", CodeIllegalPos},                                      // dead pawn
		{"4k4/N8/9/9/9/9/9/9/4K4 b - 1", CodeIllegalPos},                                      // dead knight
		{"4k4/9/9/9/9/9/9/9/4K3l w - 1", CodeIllegalPos},                                      // dead Gote lance
		{"4k4/9/9/P8/P8/9/9/9/4K4 b - 1", CodeIllegalPos},                                     // nifu
		{"4k3R/9/9/9/9/9/9/9/4K4 b - 1", CodeIllegalPos},                                      // Gote in check, Sente to move
		{"lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 1", CodeSFENFields}, // five fields
	}
	for _, tc := range tests {
		_, err := ParseSFEN(tc.sfen)
		re, ok := sdk.AsRuleError(err)
		if !ok || re.Code != tc.code {
			t.Errorf("ParseSFEN(%q) = %v, want code %s", tc.sfen, err, tc.code)
		}
	}
}

func TestSFENRoundTrip(t *testing.T) {
	for _, s := range []string{
		StartSFEN,
		"l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1", // hands in the canonical order
		"R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
		"4k4/9/9/9/9/9/9/9/9 b 16P 1",
		"4k4/9/9/9/9/9/9/9/4K4 w - 120",
	} {
		p, err := ParseSFEN(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.SFEN(); got != s {
			t.Errorf("SFEN() = %q, want %q", got, s)
		}
	}
	// The move number is optional on input.
	if p, err := ParseSFEN(StartSFEN[:len(StartSFEN)-2]); err != nil || p.SFEN() != StartSFEN {
		t.Errorf("three fields: %v %v", p.SFEN(), err)
	}
}
