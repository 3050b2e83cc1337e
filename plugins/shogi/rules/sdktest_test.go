package rules

import (
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

// TestConformance runs the sdk conformance suite in-process.
func TestConformance(t *testing.T) { sdktest.Run(t, Variant{}) }
