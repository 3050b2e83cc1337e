//go:build !unix

package nice

import "os/exec"

// process does nothing here: the process keeps its priority.
func process(int, int) error { return nil }

// apart does nothing here.
func apart(*exec.Cmd) {}
