// Package nice lowers the CPU priority of a whole process.
//
// On Linux a niceness belongs to a thread, not to a process:
// setpriority(PRIO_PROCESS, pid) changes only the thread whose id is pid
// (a Go program's first thread), and a Go program runs its goroutines on
// the others. Measured under load attack, an API plugin process "niced to
// 10" that way ran its work at nice 0 on all its other threads. Process
// changes every thread the process has; a thread started later takes the
// niceness of the thread that starts it, which is then one of them.
//
// Where the kernel shares the CPU between sessions first and only then
// between the threads of a session (autogroup: the default of most Linux
// kernels, for processes not placed in a cgroup of their own, as when the
// host is started from a shell), a niced process in the host's session
// still spends the session's share: its CPU is charged to the rooms'
// group against every other session on the machine. A process started
// Apart (a session of its own) is given to Process, which sets its group's
// niceness too.
package nice

import "os/exec"

// Process sets the niceness of every thread of process pid to n (n <= 0:
// left alone), and that of its session's group when pid leads a session
// of its own (Apart) and the kernel has such groups. Lowering a priority
// needs no privilege.
func Process(pid, n int) error {
	if n <= 0 || pid <= 0 {
		return nil
	}
	return process(pid, n)
}

// Apart makes cmd, not yet started, start in a session of its own, so
// that Process can set the niceness of its group as well as its threads'.
// The process then gets no signal meant for the terminal's foreground
// group (Ctrl-C): its parent stops it.
func Apart(cmd *exec.Cmd) { apart(cmd) }
