package rules

import (
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestPositionTextRoundTrip(t *testing.T) {
	texts := []string{StartText}
	for _, p := range samplePositions(3, 5) {
		texts = append(texts, p.Text())
	}
	for _, text := range texts {
		p, err := ParsePosition(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if got := p.Text(); got != text {
			t.Fatalf("round trip\n got %s\nwant %s", got, text)
		}
	}
}

func TestPositionTextErrors(t *testing.T) {
	start := "2SnGnKnGnSn2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2"
	for _, c := range []struct{ name, text string }{
		{"empty", ""},
		{"five fields", start + " s - - singles,two_mates,mater"},
		{"eight rows", "9/9/9/9/9/9/9/9 s - - singles,two_mates,mater 1"},
		{"long row", "2SnGnKnGnSn3/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"},
		{"short row", "2SnGnKnGnSn1/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"},
		{"bad letter", "2SnGnKnGnBn2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"},
		{"bad owner", "2SnGnKnGnSq2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"},
		{"promoted gold", "2Sn+GnKnGnSn2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"},
		{"flipped silver", "2~SnGnKnGnSn2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"},
		{"flipped king of a live seat", "2SnGn~KnGnSn2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"},
		{"mated seat's king upright", start + " s - ns singles,two_mates,mater 1"},
		{"ownerless without facing", "2SnGnKnGnSx2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"},
		{"ownerless king", "2SnGnKx^GnSn2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"},
		{"king turned", "2SnGnKn^GnSn2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"},
		{"two kings", "2SnGnKnGnKn2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"},
		{"pawn on its last rank", "Ps1SnGnKnGnSn2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"},
		{"too many rooks", start + " s Rs - singles,two_mates,mater 1"},
		{"bad turn", start + " x - - singles,two_mates,mater 1"},
		{"bad hand", start + " s 1Ps - singles,two_mates,mater 1"},
		{"king in hand", start + " s Ks - singles,two_mates,mater 1"},
		{"hand twice", start + " s PsPs - singles,two_mates,mater 1"},
		{"bad format", start + " s - - triples,two_mates,mater 1"},
		{"bad limit", start + " s - - singles,two_mates,mater,limit=0 1"},
		{"move number 0", start + " s - - singles,two_mates,mater 0"},
		{"move number 01", start + " s - - singles,two_mates,mater 01"},
		{"self mate", start + " s - ss singles,two_mates,mater 1"},
	} {
		_, err := ParsePosition(c.text)
		if re, ok := sdk.AsRuleError(err); !ok || re.Code != sdk.CodeBadPosition {
			t.Errorf("%s: %v, want bad_position", c.name, err)
		}
	}
}

func TestMoveText(t *testing.T) {
	for _, c := range []struct {
		text string
		ok   bool
	}{
		{"S:5g5f", true}, {"N:4c4d+", true}, {"W:R*5e", true}, {"E:P*1a", true},
		{"S:5g5f=", false}, {"s:5g5f", false}, {"S5g5f", false}, {"S:5g5g", false}, {"S:K*5e", false},
		{"S:R*5e+", false}, {"S:0a1a", false}, {"S:5j5f", false}, {"X:5g5f", false}, {"", false}, {"S:", false},
	} {
		seat, m, err := parseMove(c.text)
		if (err == nil) != c.ok {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if err == nil && moveText(seat, m) != c.text {
			t.Errorf("%q prints as %q", c.text, moveText(seat, m))
		}
	}
}

func FuzzPositionText(f *testing.F) {
	f.Add(StartText)
	for _, p := range samplePositions(11, 3) {
		f.Add(p.Text())
	}
	f.Add("4Kn3~Ke/7Gs1/9/9/Sx<8/9/4Pn4/7Rs1/4Ks4 s 2PsRw wn,es pairs,last_player,ownerless,limit=30 17")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := ParsePosition(text)
		if err != nil {
			if _, ok := sdk.AsRuleError(err); !ok {
				t.Fatalf("not a RuleError: %v", err)
			}
			return
		}
		printed := p.Text()
		q, err := ParsePosition(printed)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", text, printed, err)
		}
		if q != p || q.Text() != printed {
			t.Fatalf("unstable: %q → %q → %q", text, printed, q.Text())
		}
		if p.turn >= 0 {
			p.legalMoves(nil) // must not panic on any valid position
		}
	})
}

func FuzzMoveText(f *testing.F) {
	for _, s := range []string{"S:5g5f", "N:4c4d+", "W:R*5e", "E:P*1a", "S:5g5f=", "X:", "S:1a9i+"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		seat, m, err := parseMove(text)
		if err != nil {
			return
		}
		printed := moveText(seat, m)
		s2, m2, err := parseMove(printed)
		if err != nil || s2 != seat || m2 != m || printed != text {
			t.Fatalf("%q → %q → (%d %v %v)", text, printed, s2, m2, err)
		}
	})
}
