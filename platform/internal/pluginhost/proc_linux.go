package pluginhost

import (
	"os/exec"
	"syscall"
)

// setParentDeath makes the kernel kill the plugin when the host dies, even
// by SIGKILL, so no plugin outlives its host.
func setParentDeath(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
