// Command yonin is the Yonin Shogi rules plugin: the host starts it, and by
// hand it answers `describe` and `perft -depth N [-position P]`. The
// computer player is package engine's.
package main

import (
	"github.com/banmen/banmen/plugins/yonin/engine"
	"github.com/banmen/banmen/sdk/serve"
)

func main() { serve.Serve(engine.Variant{}) }
