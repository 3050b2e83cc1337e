// Command xiangqi is the Xiangqi rules plugin: sdk.Serve does the rest.
package main

import (
	"github.com/banmen/banmen/plugins/xiangqi/rules"
	"github.com/banmen/banmen/sdk"
)

func main() { sdk.Serve(rules.Variant{}) }
