package pluginhost

import "github.com/banmen/banmen/platform/internal/nice"

// renice lowers the scheduling priority of every thread of process pid to
// nice (0: left alone), so that the kernel runs a room's rules process
// first when anonymous work keeps the CPUs busy. Failing is harmless: the
// process keeps its priority.
func renice(pid, n int) { _ = nice.Process(pid, n) }
