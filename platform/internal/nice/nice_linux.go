package nice

import (
	"os"
	"strconv"
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
			return nil
		}
	}
	return nil
}
