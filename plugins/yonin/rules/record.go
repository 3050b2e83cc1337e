package rules

import (
	"strings"

	"github.com/banmen/banmen/sdk"
)

// record is the game record of format "yonin": a comment line, the initial
// position text, then one move text per line.
func (g *game) record() string {
	return g.recordWith("Yonin Shogi (Banmen): initial position, then one move per line")
}

// recordWith is the record under the header comment header (one line).
func (g *game) recordWith(header string) string {
	var b strings.Builder
	b.WriteString("# " + strings.ReplaceAll(header, "\n", " ") + "\n")
	b.WriteString(g.start.Text())
	b.WriteByte('\n')
	for i, m := range g.moves {
		b.WriteString(moveText(int(g.movers[i]), m))
		b.WriteByte('\n')
	}
	return b.String()
}

// parseRecord reads a game record: lines starting with '#' are comments, the
// first other line is the position text, and the rest are move texts
// separated by white space. A lone position text is a game with no moves.
func parseRecord(text string) (*game, error) {
	var pos string
	var moves []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if pos == "" {
			pos = line
			continue
		}
		moves = append(moves, strings.Fields(line)...)
	}
	if pos == "" {
		return nil, sdk.Errorf(sdk.CodeBadNotation, "the record has no position")
	}
	if len(moves) > maxStateMoves {
		// Refused before any move is replayed.
		return nil, sdk.Errorf(sdk.CodeBadNotation, "the record has %d moves, more than the %d a game may hold", len(moves), maxStateMoves)
	}
	start, err := ParsePosition(pos)
	if err != nil {
		return nil, err
	}
	if err := playable(&start); err != nil {
		return nil, err
	}
	set := defaultSettings()
	set.rules, set.firstSeat = start.rules, int(start.turn)
	g := newGame(set, start)
	for i, t := range moves {
		seat, m, err := parseMove(t)
		if err != nil {
			return nil, sdk.Errorf(sdk.CodeBadNotation, "move %d: %v", i+1, err.(*sdk.RuleError).Message)
		}
		if err := g.play(seat, m); err != nil {
			re, _ := sdk.AsRuleError(err)
			return nil, sdk.Errorf(sdk.CodeBadNotation, "move %d (%s): %s", i+1, t, re.Message)
		}
	}
	return g, nil
}

// playable checks that a position can start a game: someone to move who has a
// legal move, and the move limit not reached.
func playable(p *Position) error {
	switch {
	case p.turn < 0:
		return badPosition("the game in this position is over")
	case p.rules.Limit > 0 && p.ply >= p.rules.Limit:
		return badPosition("the move limit is already reached")
	case !p.hasLegalMove(int(p.turn), 0):
		return badPosition("seat %c to move has no legal move", seatUpper[p.turn])
	}
	return nil
}
