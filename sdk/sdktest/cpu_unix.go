//go:build unix

package sdktest

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, user and system, every
// thread (the garbage collector's too).
func processCPU() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
