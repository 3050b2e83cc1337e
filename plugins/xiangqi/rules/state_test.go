package rules

import (
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// payload builds a state payload by hand: a FEN, moves as cell pairs, and
// the resignation byte.
func payload(fen string, cells [][2]byte, resign byte) []byte {
	b := binary.AppendUvarint(nil, uint64(len(fen)))
	b = append(b, fen...)
	b = binary.AppendUvarint(b, uint64(len(cells)))
	for _, c := range cells {
		b = append(b, c[0], c[1])
	}
	return append(b, resign)
}

// cellsOf turns UCCI moves into cell pairs.
func cellsOf(t *testing.T, moves ...string) [][2]byte {
	var out [][2]byte
	for _, w := range moves {
		m, err := ParseUCCI(w)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, [2]byte{byte(m.From().cell()), byte(m.To().cell())})
	}
	return out
}

func TestStateRoundTrip(t *testing.T) {
	g := NewGame(StartPosition())
	playAll(t, g, "h2e2 h9g7 h0g2")
	g.Resign(Black)
	st := g.encode()
	back, err := replayState(st)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.view(), g.view()) {
		t.Errorf("decoded game differs:\n%+v\n%+v", back.view(), g.view())
	}
	if string(back.encode()) != string(st) {
		t.Errorf("re-encoding differs")
	}
}

func TestStateRejects(t *testing.T) {
	seal := func(b []byte) sdk.State { return sdk.SealState(variantID, stateVersion, b) }
	good := payload(StartFEN, cellsOf(t, "h2e2"), 0)
	tests := []struct {
		name string
		st   sdk.State
	}{
		{"nil", nil},
		{"another variant", sdk.SealState("shogi", stateVersion, good)},
		{"another version", sdk.SealState(variantID, 2, good)},
		{"empty payload", seal(nil)},
		{"bad FEN", seal(payload("rnbakabnr w", nil, 0))},
		{"illegal move", seal(payload(StartFEN, cellsOf(t, "h2h8"), 0))},
		{"move by the wrong side", seal(payload(StartFEN, cellsOf(t, "h2e2", "e2e6"), 0))},
		{"move off the board", seal(payload(StartFEN, [][2]byte{{90, 0}}, 0))},
		{"move after mate", seal(payload("R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1", cellsOf(t, "e9e8"), 0))},
		{"resignation after mate", seal(payload("R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1", nil, 2))},
		{"bad resignation byte", seal(payload(StartFEN, nil, 5))},
		{"abandonment after mate", seal(payload("R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1", nil, 4))},
		{"trailing byte", seal(append(payload(StartFEN, nil, 0), 0))},
		{"missing resignation byte", seal(payload(StartFEN, nil, 0)[:len(payload(StartFEN, nil, 0))-1])},
		{"huge FEN length", seal(append(binary.AppendUvarint(nil, 1<<40), StartFEN...))},
		{"huge move count", seal(append(append(binary.AppendUvarint(nil, uint64(len(StartFEN))), StartFEN...), 0xff, 0xff, 0xff, 0xff, 0x0f))},
	}
	for _, tc := range tests {
		if _, err := replayState(tc.st); !hasCode(err, sdk.CodeBadState) {
			t.Errorf("%s: %v, want bad_state", tc.name, err)
		}
	}
	if _, err := replayState(seal(good)); err != nil {
		t.Errorf("the good payload: %v", err)
	}
}

// FuzzState feeds bytes as a state and, sealed, as a payload: never a
// panic, always bad_state when rejected, and an accepted state re-encodes to
// a state with the same view.
func FuzzState(f *testing.F) {
	g := NewGame(StartPosition())
	f.Add([]byte(g.encode()))
	f.Add(payload(StartFEN, nil, 0))
	for _, m := range []string{"h2e2", "h9g7", "h0g2", "i9h9"} {
		mv, _ := ParseUCCI(m)
		g.Play(mv)
	}
	f.Add([]byte(g.encode()))
	f.Add(payload(g.start.FEN(), nil, 2))
	f.Add(payload("R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1", nil, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, st := range []sdk.State{b, sdk.SealState(variantID, stateVersion, b)} {
			g, err := replayState(st)
			if err != nil {
				if !hasCode(err, sdk.CodeBadState) {
					t.Fatalf("decodeState: %v, want bad_state", err)
				}
				continue
			}
			again, err := replayState(g.encode())
			if err != nil {
				t.Fatalf("re-encoded state rejected: %v", err)
			}
			if !reflect.DeepEqual(again.view(), g.view()) {
				t.Fatalf("re-encoded state has another view")
			}
		}
	})
}
