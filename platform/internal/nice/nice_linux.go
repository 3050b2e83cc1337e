package nice

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// process renices each thread listed in /proc/pid/task, and lists them
// again until a pass finds none it had not seen: a thread started during a
// pass by a thread not yet reniced is caught by the next one.
func process(pid, n int) error {
	seen := map[int]bool{}
	for pass := 0; pass < 8; pass++ {
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		if err != nil {
			if pass > 0 {
				return nil // the process ended
			}
			return syscall.Setpriority(syscall.PRIO_PROCESS, pid, n)
		}
		fresh := false
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
		if !fresh {
			return group(pid, n)
		}
	}
	return group(pid, n)
}

// group sets the niceness of pid's autogroup when pid leads its session:
// never the group of a session it shares (the host's).
func group(pid, n int) error {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil // the process ended
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 4 || f[3] != strconv.Itoa(pid) { // field 6, the session
		return nil
	}
	err = os.WriteFile("/proc/"+strconv.Itoa(pid)+"/autogroup", []byte(strconv.Itoa(n)), 0)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// apart gives cmd a session of its own.
func apart(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}
