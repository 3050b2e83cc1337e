package rules

import (
	"fmt"
	"strings"

	"github.com/banmen/banmen/sdk"
)

// The game record formats of Export and Import.
//
// "fen+ucci" is one line, "fen <FEN> moves <ucci> ..." ("moves" left out when
// there are none). Import also reads it with a leading "position " (as a UCCI
// engine is told), "startpos [moves ...]" and a bare FEN.
//
// "wxf" is a readable record:
//
//	FEN: <start FEN>
//	Red: <name>        (ExportWith, when Red's player gave a name; so Black)
//	1. C2.5 H8+7
//	2. H2+3 R9.8
//	Result: 1-0 checkmate
//
// A game that starts with Black to move begins "1. ... H8+7". The result
// line is "*" while the game is on, else 1-0 (Red won), 0-1 or 1/2-1/2 and
// the reason in words ("Black left the game" for a game Black left, a
// claimed win). Import reads the FEN line (optional: the start position),
// the moves (move numbers and "..." are skipped) and, when the result says
// "resignation" or "left the game", that ending.
const (
	NotationFENUCCI = "fen+ucci"
	NotationWXF     = "wxf"
)

// reasonWords are the words of the wxf result line.
var reasonWords = map[string]string{
	ReasonCheckmate:      "checkmate",
	ReasonStalemate:      "stalemate",
	ReasonRepetition:     "repetition",
	ReasonPerpetualCheck: "perpetual check",
	ReasonSixtyMoves:     "sixty moves",
	ReasonResignation:    "resignation",
}

// abandonedWords follow the side's name on the wxf result line of a game
// that side left (sdk.Abandon): "Result: 1-0 Black left the game".
const abandonedWords = " left the game"

// sideNames are the sides' names on the wxf result line.
var sideNames = [2]string{"Red", "Black"}

// writers and readers are the notations of Describe.
var (
	writers = sdk.Formats[func(*Game) string]{
		NotationFENUCCI: (*Game).exportFENUCCI,
		NotationWXF:     (*Game).exportWXF,
	}
	readers = sdk.Formats[func(string) (*Game, error)]{
		NotationFENUCCI: importFENUCCI,
		NotationWXF:     importWXF,
	}
)

// Export writes the game in one of the notations.
func (Variant) Export(s sdk.State, format string) (string, error) {
	c, err := decodeState(s)
	if err != nil {
		return "", err
	}
	write, err := writers.Get(format)
	if err != nil {
		return "", err
	}
	return write(c.g), nil
}

func (g *Game) exportFENUCCI() string {
	var b strings.Builder
	b.WriteString("fen ")
	b.WriteString(g.start.FEN())
	if len(g.moves) > 0 {
		b.WriteString(" moves")
		for _, m := range g.moves {
			b.WriteByte(' ')
			b.WriteString(UCCI(m))
		}
	}
	return b.String()
}

func (g *Game) exportWXF() string {
	var b strings.Builder
	fmt.Fprintf(&b, "FEN: %s\n", g.start.FEN())
	num := g.start.move
	for i, t := range g.texts {
		side := g.start.side ^ Color(i&1)
		switch {
		case side == Red:
			fmt.Fprintf(&b, "%d. %s", num, t)
		case i == 0:
			fmt.Fprintf(&b, "%d. ... %s", num, t)
		default:
			fmt.Fprintf(&b, " %s", t)
		}
		if side == Black {
			num++
			b.WriteByte('\n')
		}
	}
	if len(g.texts) > 0 && g.pos.side == Black {
		b.WriteByte('\n')
	}
	b.WriteString("Result: ")
	switch r := g.result; {
	case r == nil:
		b.WriteString("*")
	case r.Draw:
		b.WriteString("1/2-1/2 " + reasonWords[r.Reason])
	case r.Reason == sdk.ReasonAbandoned:
		score := map[Color]string{Red: "0-1 ", Black: "1-0 "}[g.resigned]
		b.WriteString(score + sideNames[g.resigned] + abandonedWords)
	case r.Winners[0] == 0:
		b.WriteString("1-0 " + reasonWords[r.Reason])
	default:
		b.WriteString("0-1 " + reasonWords[r.Reason])
	}
	b.WriteByte('\n')
	return b.String()
}

// Import reads a game or a position.
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

func notationError(format string, args ...any) error {
	return sdk.Errorf(sdk.CodeBadNotation, format, args...)
}

func importFENUCCI(text string) (*Game, error) {
	f := strings.Fields(text)
	if len(f) > 0 && f[0] == "position" {
		f = f[1:]
	}
	var pos, moves []string
	for i, w := range f {
		if w == "moves" {
			pos, moves = f[:i], f[i+1:]
			break
		}
	}
	if pos == nil {
		pos = f
	}
	if len(moves) > maxStateMoves {
		return nil, notationError("too many moves")
	}
	var start *Position
	switch {
	case len(pos) == 0:
		return nil, notationError("no position")
	case pos[0] == "startpos" && len(pos) == 1:
		start = StartPosition()
	case pos[0] == "startpos":
		return nil, notationError("unexpected %q after startpos", sdk.Clip(pos[1]))
	default:
		if pos[0] == "fen" {
			pos = pos[1:]
		}
		var err error
		if start, err = ParseFEN(strings.Join(pos, " ")); err != nil {
			return nil, err
		}
	}
	g := NewGame(start)
	for i, w := range moves {
		m, err := ParseUCCI(w)
		if err == nil {
			err = g.Play(m)
		}
		if err != nil {
			return nil, notationError("move %d (%s): %v", i+1, w, err)
		}
	}
	return g, nil
}

func importWXF(text string) (*Game, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	start := StartPosition()
	var g *Game
	for n, line := range lines {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "FEN:"); ok {
			if g != nil {
				return nil, notationError("line %d: FEN after the moves", n+1)
			}
			var err error
			if start, err = ParseFEN(rest); err != nil {
				return nil, err
			}
			continue
		}
		if isPlayerLine(line) {
			continue // the players' names (players.go)
		}
		if g == nil {
			g = NewGame(start)
		}
		if rest, ok := strings.CutPrefix(line, "Result:"); ok {
			if (strings.Contains(rest, "resignation") || strings.Contains(rest, abandonedWords)) && !g.Over() {
				loser := Black
				if strings.Contains(rest, "0-1") {
					loser = Red
				}
				if strings.Contains(rest, abandonedWords) {
					_ = g.Abandon(loser) // the game is on: cannot fail
				} else {
					_ = g.Resign(loser)
				}
			}
			break
		}
		for _, w := range strings.Fields(line) {
			if w == "..." || isMoveNumber(w) {
				continue
			}
			if len(g.moves) >= maxStateMoves {
				return nil, notationError("too many moves")
			}
			m, err := g.pos.ParseWXF(w)
			if err == nil {
				err = g.Play(m)
			}
			if err != nil {
				return nil, notationError("line %d: %s: %v", n+1, w, err)
			}
		}
	}
	if g == nil {
		g = NewGame(start)
	}
	return g, nil
}

// isMoveNumber reports whether w is "12." (a move number).
func isMoveNumber(w string) bool {
	if len(w) < 2 || w[len(w)-1] != '.' {
		return false
	}
	for _, c := range w[:len(w)-1] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
