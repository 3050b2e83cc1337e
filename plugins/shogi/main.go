// Command shogi is the shogi rules plugin: started by the Banmen host it
// serves the rules over the plugin protocol; run by hand it offers
// `describe` and `perft -depth N [-position SFEN]`.
package main

import (
	"github.com/banmen/banmen/plugins/shogi/rules"
	"github.com/banmen/banmen/sdk"
)

func main() { sdk.Serve(rules.Variant{}) }
