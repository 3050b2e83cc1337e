package rules

import (
	"encoding/binary"
	"strconv"

	"github.com/banmen/banmen/sdk"
)

// The State is sealed by sdk.SealState (variant ID, version, checksum). Its
// payload, version 1, is the initial SFEN and every move as text:
//
//	uvarint len, SFEN bytes
//	uvarint count, then per move: seat byte, length byte, move text
//
// Decoding replays every move through the checked game, so a State that
// passed its checksum but holds an impossible game is still refused; only
// the exact bytes of a State this process produced skip that (cache.go).
const (
	stateVersion = 1
	// maxStateMoves bounds the moves a State may hold, so that hostile bytes
	// cannot make a call replay forever.
	maxStateMoves = sdk.MaxRecordMoves
	maxSFENLen    = 256
)

// encode writes the game into a sealed State.
func (g *game) encode() sdk.State {
	sfen := g.startSFEN
	// The payload is built on the stack when it fits: SealState copies it.
	var buf [2048]byte
	b := buf[:0]
	b = binary.AppendUvarint(b, uint64(len(sfen)))
	b = append(b, sfen...)
	b = binary.AppendUvarint(b, uint64(len(g.records)))
	b = append(b, g.moves...)
	return sdk.SealState(ID, stateVersion, b)
}

// replayState opens and replays a State, checking every move: the path of a
// State the cache does not hold. Every defect is CodeBadState.
func replayState(s sdk.State) (*game, error) {
	ver, b, err := sdk.OpenState(ID, s)
	if err != nil {
		return nil, err
	}
	if ver != stateVersion {
		return nil, sdk.Errorf(sdk.CodeBadState, "game state version %d is not known", ver)
	}
	bad := func(what string) error { return sdk.Errorf(sdk.CodeBadState, "game state: %s", what) }
	n, k := binary.Uvarint(b)
	if k <= 0 || n > maxSFENLen || uint64(len(b)-k) < n {
		return nil, bad("truncated position")
	}
	b = b[k:]
	start, err := ParseSFEN(string(b[:n]))
	if err != nil {
		return nil, bad("bad position: " + err.Error())
	}
	if start.SFEN() != string(b[:n]) {
		return nil, bad("the position is not written canonically")
	}
	b = b[n:]
	count, k := binary.Uvarint(b)
	if k <= 0 || count > maxStateMoves {
		return nil, bad("bad move count")
	}
	b = b[k:]
	g := newGame(start)
	for i := uint64(0); i < count; i++ {
		if len(b) < 2 || len(b) < 2+int(b[1]) {
			return nil, bad("truncated moves")
		}
		seat, mv := int(b[0]), sdk.Move(b[2:2+int(b[1])])
		b = b[2+int(b[1]):]
		if err := g.play(seat, mv); err != nil {
			return nil, bad("move " + strconv.Itoa(int(i)+1) + ": " + err.Error())
		}
	}
	if len(b) != 0 {
		return nil, bad("trailing bytes")
	}
	return g, nil
}
