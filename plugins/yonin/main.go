// Command yonin is the Yonin Shogi rules plugin: the host starts it, and by
// hand it answers `describe` and `perft -depth N [-position P]`.
package main

import (
	"github.com/banmen/banmen/plugins/yonin/rules"
	"github.com/banmen/banmen/sdk"
)

func main() { sdk.Serve(rules.Variant{}) }
