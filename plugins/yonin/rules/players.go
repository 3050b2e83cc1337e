package rules

import (
	"strings"

	"github.com/banmen/banmen/sdk"
)

var _ sdk.PlayersExporter = Variant{}

// seatKeys are the seats' text keys, South first.
var seatKeys = [4]string{"seat.yonin.south", "seat.yonin.west", "seat.yonin.north", "seat.yonin.east"}

// ExportWith is ExportIn (Export without o.Lang) with the players' names:
// a comment line under the record's header for each seat whose player gave
// a name, "# West: Hanako", the seat named in o.Lang. A name is the host's
// untrusted data: its line breaks and control characters are dropped, so
// it stays inside its comment, which Import skips.
func (v Variant) ExportWith(s sdk.State, format string, o sdk.ExportOptions) (string, error) {
	var text string
	var err error
	if o.Lang == "" {
		text, err = v.Export(s, format)
	} else {
		text, err = v.ExportIn(s, format, o.Lang)
	}
	if err != nil {
		return "", err
	}
	var lines strings.Builder
	for seat, key := range seatKeys {
		if seat >= len(o.Players) {
			break
		}
		name := sdk.HeaderName(o.Players[seat])
		if name == "" {
			continue
		}
		seatName := texts[o.Lang][key]
		if seatName == "" {
			seatName = texts["en"][key]
		}
		lines.WriteString("# " + seatName + ": " + name + "\n")
	}
	if lines.Len() == 0 {
		return text, nil
	}
	header, rest, _ := strings.Cut(text, "\n")
	return header + "\n" + lines.String() + rest, nil
}
