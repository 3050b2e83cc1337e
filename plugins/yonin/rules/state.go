package rules

import (
	"encoding/binary"

	"github.com/banmen/banmen/sdk"
)

// stateVersion is the version byte of the state encoding below.
const stateVersion = 1

// Limits that keep hostile state bytes cheap to reject.
const (
	maxStateText  = 512
	maxStateMoves = sdk.MaxRecordMoves
)

// encodeState writes a game as: host settings (5 bytes), the initial
// position text (uvarint length + bytes), the moves (uvarint count + 2 bytes
// each), sealed in the sdk envelope. The current position is not stored: it
// is rebuilt by replaying, so every move is checked again; only the exact
// bytes of a state this process produced skip that (cache.go).
func (g *game) encodeState() sdk.State {
	s := g.set
	b := []byte{bool8(s.showLegal), bool8(s.rotateFirst), byte(s.firstSeat), byte(s.timePerMove), byte(s.players)}
	text := g.start.Text()
	b = binary.AppendUvarint(b, uint64(len(text)))
	b = append(b, text...)
	b = binary.AppendUvarint(b, uint64(len(g.moves)))
	for _, m := range g.moves {
		b = binary.LittleEndian.AppendUint16(b, uint16(m))
	}
	return sdk.SealState("yonin", stateVersion, b)
}

func bool8(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// replayState opens and replays a state, checking every move: the path of a
// state the cache does not hold (cache.go). Any defect is CodeBadState.
func replayState(st sdk.State) (*game, error) {
	version, b, err := sdk.OpenState("yonin", st)
	if err != nil {
		return nil, err
	}
	bad := func(what string) error { return sdk.Errorf(sdk.CodeBadState, "game state: %s", what) }
	if version != stateVersion {
		return nil, bad("unknown version")
	}
	if len(b) < 5 {
		return nil, bad("truncated settings")
	}
	s := defaultSettings()
	if b[0] > 1 || b[1] > 1 || b[2] > 3 || (b[3] != 0 && b[3] != 30 && b[3] != 60) || b[4] < 1 || b[4] > 4 {
		return nil, bad("bad settings")
	}
	s.showLegal, s.rotateFirst, s.firstSeat, s.timePerMove, s.players = b[0] == 1, b[1] == 1, int(b[2]), int(b[3]), int(b[4])
	b = b[5:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > maxStateText || uint64(len(b)-k) < n {
		return nil, bad("truncated position")
	}
	start, err := ParsePosition(string(b[k : k+int(n)]))
	if err != nil {
		return nil, bad("bad initial position")
	}
	if start.turn < 0 {
		return nil, bad("the initial position has ended")
	}
	s.rules = start.rules
	b = b[k+int(n):]
	n, k = binary.Uvarint(b)
	if k <= 0 || n > maxStateMoves || uint64(len(b)-k) != 2*n {
		return nil, bad("bad move list")
	}
	b = b[k:]
	g := newGame(s, start)
	for i := range int(n) {
		m := move(binary.LittleEndian.Uint16(b[2*i:]))
		if g.end != "" {
			return nil, bad("moves after the end")
		}
		if err := g.play(int(g.pos.turn), m); err != nil {
			return nil, bad("an illegal move in the record")
		}
	}
	return g, nil
}
