package channel

import (
	"crypto/rand"
	"net"
)

// listen listens on an abstract Unix socket: it has no file to leave
// behind when the plugin is killed, and the token guards it instead of file
// permissions.
func listen() (net.Listener, string, error) {
	addr := "@banmen-plugin-" + rand.Text()
	ln, err := net.Listen("unix", addr)
	return ln, addr, err
}
