//go:build !linux

package host

import "os/exec"

// setParentDeath has no portable equivalent; on other systems the host's
// graceful shutdown kills its plugins.
func setParentDeath(*exec.Cmd) {}
