package rules

import (
	"strings"

	"github.com/banmen/banmen/sdk"
)

var _ sdk.PlayersExporter = Variant{}

// ExportWith is Export with the players' names: the wxf record's "Red:" and
// "Black:" lines under its FEN line, one for each side whose player gave a
// name (FEN + UCCI has no place for them). A name is the host's untrusted
// data: its line breaks and control characters are dropped, so it stays on
// its line; Import skips these lines.
func (v Variant) ExportWith(s sdk.State, format string, o sdk.ExportOptions) (string, error) {
	text, err := v.Export(s, format)
	if err != nil || format != NotationWXF {
		return text, err
	}
	var lines strings.Builder
	for seat, side := range sideNames {
		if seat < len(o.Players) {
			if name := sdk.HeaderName(o.Players[seat]); name != "" {
				lines.WriteString(side + ": " + name + "\n")
			}
		}
	}
	if lines.Len() == 0 {
		return text, nil
	}
	fen, rest, _ := strings.Cut(text, "\n")
	return fen + "\n" + lines.String() + rest, nil
}

// isPlayerLine tells whether a wxf line is one of ExportWith's names.
func isPlayerLine(line string) bool {
	for _, side := range sideNames {
		if strings.HasPrefix(line, side+":") {
			return true
		}
	}
	return false
}
