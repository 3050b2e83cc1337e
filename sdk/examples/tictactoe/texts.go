package tictactoe

import (
	"embed"

	"github.com/banmen/banmen/sdk"
)

// texts are the variant's own strings, one texts/<lang>.json per language:
// names, seats, pieces, results, notices, errors and its pages on the site.
// They travel to the host in the Description (sdk.Texts).
//
//go:embed texts/*.json
var textFS embed.FS

var texts = sdk.MustLoadTexts(textFS, "texts")

// The variant's looks: its home card picture (Description.Card) and its
// marks drawn as SVG (PieceKind.Drawing), in the seat's colour
// (currentColor), instead of tokens with a glyph.
var (
	//go:embed looks/card.svg
	card string
	//go:embed looks/x.svg
	drawingX string
	//go:embed looks/o.svg
	drawingO string
)
