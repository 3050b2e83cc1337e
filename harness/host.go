package harness

import (
	"context"

	"github.com/banmen/banmen/platform/hosttest"
)

// Host is a Banmen host started for a test run: on a free loopback port,
// with a temporary data directory and the plugins of a bin directory.
//
// Deprecated: use hosttest.Host (github.com/banmen/banmen/platform/hosttest);
// this alias stays so that code written against the harness's first API
// still builds. See harness/CHANGELOG.md.
type Host = hosttest.Host

// StartHost starts bin/banmen with bin/plugins on the shipped configuration
// (an empty bin builds them first).
//
// Deprecated: use hosttest.Start, which this calls. See harness/CHANGELOG.md.
func StartHost(ctx context.Context, bin string) (*Host, error) { return hosttest.Start(ctx, bin) }

// Build builds the host and every plugin into bin.
//
// Deprecated: use hosttest.Build, which this calls. See harness/CHANGELOG.md.
func Build(ctx context.Context, bin string) error { return hosttest.Build(ctx, bin) }
