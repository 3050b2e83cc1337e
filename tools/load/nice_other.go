//go:build !linux

package main

import (
	"os/exec"
	"syscall"
)

// lowerOwnPriority sets this process's niceness to n (0: left alone).
func lowerOwnPriority(n int) error {
	if n <= 0 {
		return nil
	}
	return syscall.Setpriority(syscall.PRIO_PROCESS, 0, n)
}

// lowerOwnGroup does nothing here: no session groups.
func lowerOwnGroup(int) error { return nil }

// setsid makes cmd start in a session of its own.
func setsid(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}
