//go:build unix

package pluginhost

import "syscall"

// renice lowers the scheduling priority of process pid to nice (0: left
// alone), so that the kernel runs a room's rules process first when
// anonymous work keeps the CPUs busy. Failing is harmless: the process
// keeps its priority.
func renice(pid, nice int) {
	if nice > 0 {
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice)
	}
}
