package rules

import (
	"strings"

	"github.com/banmen/banmen/sdk"
)

var _ sdk.PlayersExporter = Variant{}

// ExportWith is Export with the players' names in the record's header:
// KIF's 先手：/後手： lines, CSA's N+/N- lines (the other formats have no
// place for them). A name is the host's untrusted data: its line breaks and
// control characters are dropped, so it stays on its line.
func (v Variant) ExportWith(s sdk.State, format string, o sdk.ExportOptions) (string, error) {
	text, err := v.Export(s, format)
	if err != nil {
		return "", err
	}
	var names [2]string
	for i := range min(len(o.Players), 2) {
		names[i] = sdk.HeaderName(o.Players[i])
	}
	switch format {
	case "kif":
		text = strings.Replace(text, "先手：\n後手：\n", "先手："+names[0]+"\n後手："+names[1]+"\n", 1)
	case "csa":
		text = strings.Replace(text, "V2.2\nN+\nN-\n", "V2.2\nN+"+names[0]+"\nN-"+names[1]+"\n", 1)
	}
	return text, nil
}
