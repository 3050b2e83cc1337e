package engine

import (
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

// TestConformance runs the sdk conformance suite in-process on the variant
// as the plugin serves it, with this package's Suggest.
func TestConformance(t *testing.T) { sdktest.Run(t, Variant{}) }
