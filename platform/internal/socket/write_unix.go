//go:build unix

package socket

import (
	"net"
	"syscall"
)

// rawConn is the descriptor under a hijacked connection, for directWriter; nil
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

// directWriter makes one write that does not wait: try returns how much
// the socket took (0 when it is full), and the caller leaves the rest to
// the writer goroutine. One per connection, used by one sender at a time
// (under conn.busy): the function handed to RawConn.Write is made once, so
// a write allocates nothing (a closure per write was three allocations).
type directWriter struct {
	b   []byte
	n   int
	err error
	fn  func(fd uintptr) bool
}

func newDirectWriter() *directWriter {
	w := &directWriter{}
	w.fn = w.write
	return w
}

func (w *directWriter) write(fd uintptr) bool {
	for {
		w.n, w.err = syscall.Write(int(fd), w.b)
		if w.err != syscall.EINTR {
			return true
		}
	}
}

func (w *directWriter) try(rc syscall.RawConn, b []byte) (n int, err error) {
	w.b = b
	err = rc.Write(w.fn)
	n, werr := w.n, w.err
	w.b, w.n, w.err = nil, 0, nil
	if err != nil {
		return 0, err
	}
	if werr == syscall.EAGAIN {
		return 0, nil
	}
	return max(n, 0), werr
}
