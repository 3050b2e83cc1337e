package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/banmen/banmen/tools/internal/hostproc"
)

// hostArgs are the settings every host a load run starts has: quiet logs,
// and room creation and socket credits raised for the one client address
// all its players come from.
func hostArgs(extra ...string) []string {
	return append([]string{"-log_level", "warn", "-limits.rooms_per_minute", "100000000",
		"-limits.socket_burst", "1000", "-limits.socket_rate", "1000",
		"-limits.sockets_per_minute", "100000000", "-limits.api_calls_per_minute", "100000000",
		"-ops_addr", "127.0.0.1:0",
		"-limits.action_burst", "1000", "-limits.action_rate", "1000"}, extra...)
}

// startHost starts bin's host with hostArgs and args on a temporary data
// directory, kept (and named on out) when keep. stop stops the host and
// removes the directory.
func startHost(ctx context.Context, bin string, keep bool, env, args []string, out func(string, ...any), stderr io.Writer) (h *hostproc.Host, stop func(), err error) {
	dir, err := os.MkdirTemp("", "banmen-load-")
	if err != nil {
		return nil, nil, err
	}
	if keep {
		out("data directory and host log: %s", dir)
	}
	h, err = hostproc.Start(ctx, hostproc.Options{Bin: bin, Data: dir, Logs: filepath.Join(dir, "host.log"), Env: env, Args: hostArgs(args...)})
	if err != nil {
		if !keep {
			os.RemoveAll(dir)
		}
		return nil, nil, err
	}
	return h, func() {
		if err := h.Stop(); err != nil {
			fmt.Fprintln(stderr, "load: stopping the host:", err)
		}
		if !keep {
			os.RemoveAll(dir)
		}
	}, nil
}

// pathSetting is key=path with path made absolute (the host runs in its
// data directory), or nothing when path is empty.
func pathSetting(key, path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	p, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return []string{key + "=" + p}, nil
}
