//go:build !unix

package socket

import (
	"errors"
	"net"
	"syscall"
)

// rawConn is nil here: every message goes through the writer goroutine.
func rawConn(net.Conn) syscall.RawConn { return nil }

type directWriter struct{}

func newDirectWriter() *directWriter { return &directWriter{} }

func (*directWriter) try(syscall.RawConn, []byte) (int, error) {
	return 0, errors.New("socket: no direct writes on this system")
}
