// Package serve runs a rules plugin: a plugin's main calls Serve with its
// variants and this package does the rest (the go-plugin handshake, the
// gRPC server, the quick-call channel, logging, and the by-hand command
// line). A plugin author imports it and package sdk, nothing else of
// Banmen.
//
// It must never import the platform or any plugin, and must never know a
// game rule.
package serve

import (
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/server"
)

// Serve runs a plugin binary. Started by the host, it serves the variants over
// go-plugin's gRPC transport and the plugin's channel until the host goes
// away. Run by hand, it is a small command line: `describe` prints the
// descriptions as JSON and `perft -depth N [-position P] [-variant ID]
// [-divide]` counts a move tree. Serve never returns; it exits the process.
//
// It panics before serving when the variants cannot be served: none, one
// without an ID, two with the same ID, or one that lists computer levels
// without the method of sdk.Suggester.
func Serve(variants ...sdk.Variant) { server.Serve(variants...) }
