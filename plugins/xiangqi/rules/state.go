package rules

import (
	"encoding/binary"

	"github.com/banmen/banmen/sdk"
)

// The state is the game record and nothing else, sealed by sdk.SealState:
//
//	version 1 payload:
//	uvarint len(FEN), the start FEN
//	uvarint n, then n moves of two bytes: from and to as sdk cell indexes
//	one byte: 0 when nobody resigned, 1 + the seat that resigned, 3 + the
//	seat that left (sdk.Abandon)
//
// Decoding replays the record through the checked path, so a state that says
// anything impossible (a bad FEN, an illegal move, a move after the end,
// trailing bytes) is rejected with code bad_state and everything derived
// (position, repetition, result) is recomputed, never trusted. Only the exact
// bytes of a state this process produced skip the replay (cache.go).

const (
	variantID    = "xiangqi"
	stateVersion = 1
	// maxStateMoves bounds a record, States and imports alike (the sdk's
	// shared cap). Repetition needs no bound of its own: only the plies
	// since the last capture or forward soldier move (at most 120, the
	// 60-move rule) are compared.
	maxStateMoves = sdk.MaxRecordMoves
	maxFENLen     = 128
)

// encode seals the game's record.
func (g *Game) encode() sdk.State {
	fen := g.start.FEN()
	b := make([]byte, 0, len(fen)+2*len(g.moves)+8)
	b = binary.AppendUvarint(b, uint64(len(fen)))
	b = append(b, fen...)
	b = binary.AppendUvarint(b, uint64(len(g.moves)))
	for _, m := range g.moves {
		b = append(b, byte(m.From().cell()), byte(m.To().cell()))
	}
	switch {
	case g.resigned == noResign:
		b = append(b, 0)
	case g.abandoned:
		b = append(b, 3+byte(g.resigned))
	default:
		b = append(b, 1+byte(g.resigned))
	}
	return sdk.SealState(variantID, stateVersion, b)
}

func badState(format string, args ...any) error {
	return sdk.Errorf(sdk.CodeBadState, format, args...)
}

// replayState opens and replays a state, checking every move: the path of a
// state the cache does not hold (cache.go).
func replayState(s sdk.State) (*Game, error) {
	version, b, err := sdk.OpenState(variantID, s)
	if err != nil {
		return nil, err
	}
	if version != stateVersion {
		return nil, badState("unknown state version %d", version)
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > maxFENLen || uint64(len(b)-k) < n {
		return nil, badState("truncated start position")
	}
	b = b[k:]
	start, err := ParseFEN(string(b[:n]))
	if err != nil {
		return nil, badState("start position: %v", err)
	}
	b = b[n:]
	n, k = binary.Uvarint(b)
	if k <= 0 || n > maxStateMoves || uint64(len(b)-k) != 2*n+1 {
		return nil, badState("bad move list")
	}
	b = b[k:]
	g := NewGame(start)
	for i := 0; i < int(n); i++ {
		from, to := int(b[2*i]), int(b[2*i+1])
		if from >= 90 || to >= 90 {
			return nil, badState("move %d is off the board", i+1)
		}
		if err := g.Play(newMove(squareOfCell(from), squareOfCell(to))); err != nil {
			return nil, badState("move %d: %v", i+1, err)
		}
	}
	switch r := b[2*n]; r {
	case 0:
	case 1, 2:
		if err := g.Resign(Color(r - 1)); err != nil {
			return nil, badState("resignation after the end")
		}
	case 3, 4:
		if err := g.Abandon(Color(r - 3)); err != nil {
			return nil, badState("abandonment after the end")
		}
	default:
		return nil, badState("bad resignation byte %d", r)
	}
	return g, nil
}
