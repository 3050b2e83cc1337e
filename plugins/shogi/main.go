// Command shogi is the shogi rules plugin: started by the Banmen host it
// serves the rules over the plugin protocol, with the engine package as the
// computer player; run by hand it offers `describe` and
// `perft -depth N [-position SFEN]`.
package main

import (
	"os"

	"github.com/banmen/banmen/plugins/shogi/engine"
	"github.com/banmen/banmen/sdk/serve"
)

func main() { serve.Serve(engine.New(os.Getenv)) }
