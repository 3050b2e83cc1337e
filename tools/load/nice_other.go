//go:build !linux

package main

import "syscall"

// lowerOwnPriority sets this process's niceness to n (0: left alone).
func lowerOwnPriority(n int) error {
	if n <= 0 {
		return nil
	}
	return syscall.Setpriority(syscall.PRIO_PROCESS, 0, n)
}
