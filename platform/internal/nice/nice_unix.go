//go:build unix && !linux

package nice

import (
	"os/exec"
	"syscall"
)

// process sets the process's niceness (a process's, on these systems).
func process(pid, n int) error { return syscall.Setpriority(syscall.PRIO_PROCESS, pid, n) }

// apart gives cmd a session of its own.
func apart(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}
