package main

import (
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

// The test binary doubles as the plugin, so the conformance suite also runs
// the way the host sees the plugin: a separate process behind go-plugin.
func TestMain(m *testing.M) { sdktest.Main(m, main) }

func TestConformanceThroughPlugin(t *testing.T) { sdktest.RunSelf(t, sdktest.Config{}) }
