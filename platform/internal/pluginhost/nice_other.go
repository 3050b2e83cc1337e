//go:build !unix

package pluginhost

func renice(pid, nice int) {}
