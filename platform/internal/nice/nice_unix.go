//go:build unix && !linux

package nice

import "syscall"

// process sets the process's niceness (a process's, on these systems).
func process(pid, n int) error { return syscall.Setpriority(syscall.PRIO_PROCESS, pid, n) }
