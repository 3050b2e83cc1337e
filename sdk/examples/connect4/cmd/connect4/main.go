// Command connect4 is the Connect Four plugin: put the binary in the Banmen
// host's plugin directory. Run by hand, `connect4 describe` prints its
// Description.
package main

import (
	"example.com/connect4"

	"github.com/banmen/banmen/sdk/serve"
)

func main() { serve.Serve(connect4.Variant{}) }
