//go:build unix

package socket

import (
	"net"
	"syscall"
)

// rawConn is the descriptor under a hijacked connection, for tryWrite; nil
// where there is none (TLS, or a connection that is not a socket).
func rawConn(nc net.Conn) syscall.RawConn {
	if u, ok := nc.(interface{ UnsafeConn() net.Conn }); ok {
		nc = u.UnsafeConn()
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// tryWrite makes one write of b that does not wait: it returns how much the
// socket took (0 when it is full), and the caller leaves the rest to the
// writer goroutine.
func tryWrite(rc syscall.RawConn, b []byte) (n int, err error) {
	var werr error
	if err := rc.Write(func(fd uintptr) bool {
		for {
			n, werr = syscall.Write(int(fd), b)
			if werr != syscall.EINTR {
				return true
			}
		}
	}); err != nil {
		return 0, err
	}
	if werr == syscall.EAGAIN {
		return 0, nil
	}
	return max(n, 0), werr
}
