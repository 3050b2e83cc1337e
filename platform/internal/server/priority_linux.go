package server

import "syscall"

// lowerPriority gives the process pid the lowest CPU priority (nice 19),
// so that on a busy machine the analysis processes get only what the
// rooms' processes leave.
func lowerPriority(pid int) error { return syscall.Setpriority(syscall.PRIO_PROCESS, pid, 19) }
