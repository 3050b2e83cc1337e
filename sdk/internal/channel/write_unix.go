//go:build unix

package channel

import "syscall"

const canTryWrite = true

// tryWrite writes as much of b as the socket takes without waiting: a
// caller of the lane writes its own and the queued frames this way, and a
// goroutine writes what is left, if anything.
func tryWrite(rc syscall.RawConn, b []byte) (int, error) {
	var n int
	var werr error
	err := rc.Write(func(fd uintptr) bool {
		for n < len(b) {
			m, err := syscall.Write(int(fd), b[n:])
			if m > 0 {
				n += m
			}
			switch err {
			case nil:
				if m <= 0 {
					return true
				}
			case syscall.EINTR:
			case syscall.EAGAIN:
				return true
			default:
				werr = err
				return true
			}
		}
		return true
	})
	if werr == nil {
		werr = err
	}
	return n, werr
}
