package sdk

import (
	"strings"
	"unicode"
)

// HeaderName is a player's name as one line of a record's header may hold
// it (PlayersExporter): control and format characters (line breaks among
// them) and U+FFFD dropped, spaces trimmed, so that a name can never add a
// line of its own to the record.
func HeaderName(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar {
			return -1
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}
