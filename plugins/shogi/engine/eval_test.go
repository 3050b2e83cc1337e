package engine

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/banmen/banmen/plugins/shogi/rules"
)

// flipSFEN turns the board round and swaps the colours: the same position
// seen from the other side, which must score the same for the side to move.
func flipSFEN(sfen string) string {
	f := strings.Fields(sfen)
	swap := func(s string) string {
		b := []byte(s)
		for i, c := range b {
			switch {
			case c >= 'a' && c <= 'z':
				b[i] = c - 'a' + 'A'
			case c >= 'A' && c <= 'Z':
				b[i] = c - 'A' + 'a'
			}
		}
		return string(b)
	}
	rows := strings.Split(f[0], "/")
	out := make([]string, 9)
	for i, r := range rows {
		// Reverse the row's tokens ("+P" stays a token).
		var toks []string
		for j := 0; j < len(r); j++ {
			if r[j] == '+' {
				toks = append(toks, r[j:j+2])
				j++
				continue
			}
			toks = append(toks, r[j:j+1])
		}
		var sb strings.Builder
		for j := len(toks) - 1; j >= 0; j-- {
			sb.WriteString(toks[j])
		}
		out[8-i] = swap(sb.String())
	}
	side := map[string]string{"b": "w", "w": "b"}[f[1]]
	hand := f[2]
	if hand != "-" {
		// Sente's pieces are listed first in an SFEN hand.
		var up, low string
		for j := 0; j < len(hand); {
			k := j
			for hand[k] >= '0' && hand[k] <= '9' {
				k++
			}
			tok := hand[j : k+1]
			if hand[k] >= 'A' && hand[k] <= 'Z' {
				low += swap(tok)
			} else {
				up += swap(tok)
			}
			j = k + 1
		}
		hand = up + low
	}
	return strings.Join(out, "/") + " " + side + " " + hand + " 1"
}

// TestEvaluateSymmetric scores positions of random games and their mirror
// images: a difference is a bug in a table or a colour.
func TestEvaluateSymmetric(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for game := 0; game < 20; game++ {
		p, _ := rules.ParseSFEN(rules.StartSFEN)
		for ply := 0; ply < 120; ply++ {
			q, err := rules.ParseSFEN(flipSFEN(p.SFEN()))
			if err != nil {
				t.Fatalf("%s: flipped %q: %v", p.SFEN(), flipSFEN(p.SFEN()), err)
			}
			if a, b := evaluate(&p), evaluate(&q); a != b {
				t.Fatalf("%s scores %d, its mirror %s %d", p.SFEN(), a, q.SFEN(), b)
			}
			moves := p.GenerateMoves(nil)
			if len(moves) == 0 {
				break
			}
			p.DoMove(moves[r.IntN(len(moves))])
		}
	}
	p, _ := rules.ParseSFEN(rules.StartSFEN)
	if e := evaluate(&p); e != tempo {
		t.Errorf("the start position scores %d, want the tempo %d", e, tempo)
	}
}
