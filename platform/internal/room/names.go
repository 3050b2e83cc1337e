package room

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/banmen/banmen/platform/protocol"
)

// cleanName is a player name as a room keeps it: trimmed of spaces, at
// most protocol.MaxNameRunes characters of valid UTF-8, none of them a
// control or format character (no line breaks, no bidirectional
// overrides). "" clears the name. The name is untrusted text: whoever
// shows it shows it as text.
func cleanName(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case !utf8.ValidString(s):
		return "", errors.New("a name must be UTF-8 text")
	case utf8.RuneCountInString(s) > protocol.MaxNameRunes:
		return "", fmt.Errorf("a name has at most %d characters", protocol.MaxNameRunes)
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", fmt.Errorf("a name has no control or format characters (%U)", r)
		}
	}
	return s, nil
}
