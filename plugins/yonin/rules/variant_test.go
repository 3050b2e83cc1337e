package rules

import (
	"testing"

	"github.com/banmen/banmen/sdk/sdktest"
)

func TestConformance(t *testing.T) {
	sdktest.Run(t, Variant{})
}
