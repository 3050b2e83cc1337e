// Command xiangqi is the Xiangqi rules plugin: serve.Serve does the rest. The
// computer player is package engine's; its external engine for Hard is
// configured by the environment (engine.EnvEngine, engine.EnvMoveTime).
package main

import (
	"os"

	"github.com/banmen/banmen/plugins/xiangqi/engine"
	"github.com/banmen/banmen/sdk/serve"
)

func main() { serve.Serve(engine.NewVariant(engine.ConfigFromEnv(os.Getenv))) }
