// Command tictactoe is the tic-tac-toe plugin: started by the Banmen host it
// serves the variant over go-plugin; run by hand it offers `describe` and
// `perft`. Every variant's main is this one line.
package main

import (
	"github.com/banmen/banmen/sdk/examples/tictactoe"
	"github.com/banmen/banmen/sdk/serve"
)

func main() { serve.Serve(tictactoe.Variant{}) }
