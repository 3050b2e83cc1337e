package main

import (
	"context"
	"errors"
	"testing"

	"github.com/banmen/banmen/platform/internal/pluginhost"
	sdkhost "github.com/banmen/banmen/sdk/host"
)

// TestAnalysisHostStartsLazily: the analysis processes start at the first
// call, not before, and not after Close.
func TestAnalysisHostStartsLazily(t *testing.T) {
	a := &analysisHost{cfg: pluginhost.Config{Dir: t.TempDir()}}
	if a.h != nil {
		t.Fatal("started before any call")
	}
	err := a.Call(context.Background(), "shogi", "analyse", func(context.Context, *sdkhost.Conn) error { return nil })
	if !errors.Is(err, pluginhost.ErrUnknownVariant) || a.h == nil {
		t.Errorf("first call: %v (host %v); want the host started and unknown_variant from an empty plugin directory", err, a.h)
	}
	a.Close()
	if err := a.Call(context.Background(), "shogi", "analyse", nil); err == nil {
		t.Error("a call after Close succeeded")
	}
}
