package rules

import (
	"encoding/binary"
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestStateRoundTrip(t *testing.T) {
	g := gameFrom(t, StartSFEN, sampleMoves...)
	h, err := replayState(g.encode())
	if err != nil {
		t.Fatal(err)
	}
	if !sameGame(g, h, true) || h.pos.SFEN() != g.pos.SFEN() {
		t.Error("decode(encode(g)) is another game")
	}
}

// TestStateHostile checks states that pass the checksum but hold no valid
// game: each is refused with bad_state.
func TestStateHostile(t *testing.T) {
	payload := func(sfen string, moves ...string) []byte {
		b := binary.AppendUvarint(nil, uint64(len(sfen)))
		b = append(b, sfen...)
		b = binary.AppendUvarint(b, uint64(len(moves)))
		for i, m := range moves {
			b = append(b, byte(i%2), byte(len(m)))
			b = append(b, m...)
		}
		return b
	}
	tests := map[string]sdk.State{
		"empty":             nil,
		"garbage":           sdk.State("hello, world"),
		"another variant":   sdk.SealState("xiangqi", stateVersion, payload(StartSFEN)),
		"unknown version":   sdk.SealState(ID, 99, payload(StartSFEN)),
		"bad position":      sdk.SealState(ID, stateVersion, payload("9/9 b - 1")),
		"non-canonical":     sdk.SealState(ID, stateVersion, payload(StartSFEN[:len(StartSFEN)-2])),
		"illegal move":      sdk.SealState(ID, stateVersion, payload(StartSFEN, "7g7e")),
		"wrong seat":        sdk.SealState(ID, stateVersion, append(payload(StartSFEN), 0)),
		"trailing bytes":    sdk.SealState(ID, stateVersion, append(payload(StartSFEN, "7g7f"), 1, 2, 3)),
		"truncated moves":   sdk.SealState(ID, stateVersion, payload(StartSFEN, "7g7f")[:len(payload(StartSFEN, "7g7f"))-2]),
		"move after resign": sdk.SealState(ID, stateVersion, payload(StartSFEN, "resign", "3c3d")),
		"huge count":        sdk.SealState(ID, stateVersion, binary.AppendUvarint(payload(StartSFEN)[:len(payload(StartSFEN))-1], 1<<40)),
	}
	st, _, _ := Variant{}.Start(nil)
	flipped := append(sdk.State{}, st...)
	flipped[len(flipped)/2] ^= 0x40
	tests["flipped byte"] = flipped
	tests["truncated"] = st[:len(st)-3]
	for name, s := range tests {
		_, err := replayState(s)
		if re, ok := sdk.AsRuleError(err); !ok || re.Code != sdk.CodeBadState {
			t.Errorf("%s: err = %v, want bad_state", name, err)
		}
	}
}
