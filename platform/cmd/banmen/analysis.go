package main

import (
	"context"
	"sync"

	"github.com/banmen/banmen/platform/internal/pluginhost"
	sdkhost "github.com/banmen/banmen/sdk/host"
)

// analysisHost is the plugin processes that serve game analysis, apart
// from the ones the rooms and the computer seats use (server.Analysts):
// started at the first analysis, so that a site nobody analyses on runs
// no more processes than before. A failed start is tried again at the next
// call.
type analysisHost struct {
	cfg  pluginhost.Config
	mu   sync.Mutex
	h    *pluginhost.Host
	done bool
}

func (a *analysisHost) Call(ctx context.Context, variant, call string, fn func(context.Context, *sdkhost.Conn) error) error {
	h, err := a.host(ctx)
	if err != nil {
		return err
	}
	return h.Call(ctx, variant, call, fn)
}

func (a *analysisHost) host(ctx context.Context) (*pluginhost.Host, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return nil, context.Canceled
	}
	if a.h == nil {
		h, err := pluginhost.Start(context.WithoutCancel(ctx), a.cfg)
		if err != nil {
			return nil, err
		}
		a.h = h
	}
	return a.h, nil
}

// Close stops the processes, and any start after it.
func (a *analysisHost) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.done = true
	if a.h != nil {
		a.h.Close()
	}
}
