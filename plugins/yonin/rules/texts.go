package rules

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

// card is the picture of the variant's card on the site's home page
// (Description.Card).
//
//go:embed card.svg
var card string
