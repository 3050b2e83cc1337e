//go:build !linux

package sdk

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
)

// setParentDeath has no portable equivalent; on other systems the host's
// graceful shutdown kills its plugins.
func setParentDeath(*exec.Cmd) {}

// channelListen listens on a Unix socket in a new private directory.
func channelListen() (net.Listener, string, error) {
	dir, err := os.MkdirTemp("", "banmen-plugin-")
	if err != nil {
		return nil, "", err
	}
	addr := filepath.Join(dir, "channel")
	ln, err := net.Listen("unix", addr)
	return ln, addr, err
}
