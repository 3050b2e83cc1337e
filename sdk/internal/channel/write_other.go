//go:build !unix

package channel

import "syscall"

// Without a write that never waits, the lane's writes go on a goroutine.
const canTryWrite = false

func tryWrite(syscall.RawConn, []byte) (int, error) { return 0, nil }
