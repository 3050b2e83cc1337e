package host

import (
	"os/exec"
	"syscall"
)

// setParentDeath makes the kernel kill the plugin when the process that
// launched it dies, even by SIGKILL, so no plugin outlives its host (or a
// benchmark killed by a closed pipe). A caller's own SysProcAttr is kept.
func setParentDeath(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
