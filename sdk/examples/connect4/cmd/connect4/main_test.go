package main

import (
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

// The test binary is the plugin too: RunSelf runs the conformance suite
// across the process boundary, as the host talks to it.
func TestMain(m *testing.M) { sdktest.Main(m, main) }

func TestConformanceThroughPlugin(t *testing.T) { sdktest.RunSelf(t, sdktest.Config{}) }
