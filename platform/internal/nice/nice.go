// Package nice lowers the CPU priority of a whole process.
//
// On Linux a niceness belongs to a thread, not to a process:
// setpriority(PRIO_PROCESS, pid) changes only the thread whose id is pid
// (a Go program's first thread), and a Go program runs its goroutines on
// the others. Measured under load attack, an API plugin process "niced to
// 10" that way ran its work at nice 0 on all its other threads. Process
// changes every thread the process has; a thread started later takes the
// niceness of the thread that starts it, which is then one of them.
package nice

// Process sets the niceness of every thread of process pid to n (n <= 0:
// left alone). Lowering a priority needs no privilege.
func Process(pid, n int) error {
	if n <= 0 || pid <= 0 {
		return nil
	}
	return process(pid, n)
}
