//go:build !linux

package channel

import (
	"net"
	"os"
	"path/filepath"
)

// listen listens on a Unix socket in a new private directory.
func listen() (net.Listener, string, error) {
	dir, err := os.MkdirTemp("", "banmen-plugin-")
	if err != nil {
		return nil, "", err
	}
	addr := filepath.Join(dir, "channel")
	ln, err := net.Listen("unix", addr)
	return ln, addr, err
}
