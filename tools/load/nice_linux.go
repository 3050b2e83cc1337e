package main

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// lowerOwnPriority sets the niceness of every thread of this process to n
// (0: left alone). A niceness belongs to a thread on Linux; threads the Go
// runtime starts later take it from the thread that starts them. Each
// thread is listed again until a pass finds none new.
func lowerOwnPriority(n int) error {
	if n <= 0 {
		return nil
	}
	seen := map[int]bool{}
	for fresh := true; fresh; {
		fresh = false
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return err
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || seen[tid] {
				continue
			}
			seen[tid], fresh = true, true
			if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, n); err != nil && err != syscall.ESRCH {
				return err
			}
		}
	}
	return nil
}

// lowerOwnGroup sets the niceness of this process's session group
// (autogroup) to n, where the kernel has such groups; the process must
// lead its session (setsid), or it would lower its parent's group.
func lowerOwnGroup(n int) error {
	if sid, _, _ := syscall.RawSyscall(syscall.SYS_GETSID, 0, 0, 0); int(sid) != os.Getpid() {
		return errors.New("not a session leader")
	}
	err := os.WriteFile("/proc/self/autogroup", []byte(strconv.Itoa(n)), 0)
	if os.IsNotExist(err) {
		return nil
	}
	return err
}

// setsid makes cmd start in a session of its own.
func setsid(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}
