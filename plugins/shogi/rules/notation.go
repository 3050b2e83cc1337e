package rules

import (
	"strings"

	"github.com/banmen/banmen/sdk"
)

// writers and readers are the notations of Describe.
var (
	writers = sdk.Formats[func(*game) string]{
		FormatSFENUSI: (*game).exportSFENUSI,
		FormatKIF:     (*game).exportKIF,
		FormatCSA:     (*game).exportCSA,
	}
	readers = sdk.Formats[func(string) (*game, error)]{
		FormatSFENUSI: importSFENUSI,
		FormatKIF:     importKIF,
		FormatCSA:     importCSA,
	}
)

// Export writes the game in one of the notations of Describe.
func (Variant) Export(s sdk.State, format string) (string, error) {
	g, err := decodeState(s)
	if err != nil {
		return "", err
	}
	write, err := writers.Get(format)
	if err != nil {
		return "", err
	}
	return write(g), nil
}

// Import reads a game or a position in one of the notations of Describe.
func (Variant) Import(format, text string) (sdk.State, sdk.View, error) {
	read, err := readers.Get(format)
	if err != nil {
		return nil, sdk.View{}, err
	}
	g, err := read(text)
	if err != nil {
		return nil, sdk.View{}, err
	}
	return g.remember(), g.view(), nil
}

// exportSFENUSI writes the text after "position " in USI:
// "sfen <SFEN> moves 7g7f 3c3d". Resignations, abandonments and
// declarations are not USI position moves and are left out.
func (g *game) exportSFENUSI() string {
	var sb strings.Builder
	sb.WriteString("sfen ")
	sb.WriteString(g.start().SFEN())
	first := true
	for i, r := range g.records {
		if r.m == 0 {
			continue
		}
		if first {
			sb.WriteString(" moves")
			first = false
		}
		sb.WriteByte(' ')
		sb.WriteString(string(g.hist[i].Move))
	}
	return sb.String()
}

// importSFENUSI reads "sfen <SFEN> [moves ...]", optionally after
// "position ", or "startpos [moves ...]", or a bare SFEN [moves ...].
func importSFENUSI(text string) (*game, error) {
	f := strings.Fields(text)
	if len(f) > 0 && f[0] == "position" {
		f = f[1:]
	}
	if len(f) == 0 {
		return nil, sdk.Errorf(CodeSFENFields, "no position")
	}
	var sfen string
	var rest []string
	if f[0] == "startpos" {
		sfen, rest = StartSFEN, f[1:]
	} else {
		if f[0] == "sfen" {
			f = f[1:]
		}
		i := 0
		for i < len(f) && f[i] != "moves" {
			i++
		}
		sfen, rest = strings.Join(f[:i], " "), f[i:]
	}
	start, err := ParseSFEN(sfen)
	if err != nil {
		return nil, err
	}
	g := newGame(start)
	if len(rest) == 0 {
		return g, nil
	}
	if rest[0] != "moves" {
		return nil, sdk.Errorf(sdk.CodeBadNotation, "expected \"moves\" after the position, got %q", sdk.Clip(rest[0]))
	}
	if len(rest)-1 > maxStateMoves {
		// Refused before any move is replayed.
		return nil, sdk.Errorf(sdk.CodeBadNotation, "the record has %d moves, more than the %d a game may hold", len(rest)-1, maxStateMoves)
	}
	for i, mv := range rest[1:] {
		if mv == string(sdk.Resign) || mv == string(sdk.Abandon) {
			continue
		}
		if err := g.play(g.pos.side, sdk.Move(mv)); err != nil {
			return nil, notationError(i+1, err)
		}
	}
	return g, nil
}

// notationError names the move of a record that could not be played.
func notationError(n int, err error) error {
	msg := err.Error()
	if re, ok := sdk.AsRuleError(err); ok {
		msg = re.Message
	}
	return sdk.Errorf(sdk.CodeBadNotation, "move %d: %s", n, msg)
}

// boardMoveCount counts the board moves and drops of the game.
func (g *game) boardMoveCount() int {
	n := 0
	for _, r := range g.records {
		if r.m != 0 {
			n++
		}
	}
	return n
}
