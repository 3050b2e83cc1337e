package sdk

import (
	"crypto/rand"
	"net"
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

// channelListen listens on an abstract Unix socket: it has no file to leave
// behind when the plugin is killed, and the token guards it instead of file
// permissions.
func channelListen() (net.Listener, string, error) {
	addr := "@banmen-plugin-" + rand.Text()
	ln, err := net.Listen("unix", addr)
	return ln, addr, err
}
