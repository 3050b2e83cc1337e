package main

import (
	"os"
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
