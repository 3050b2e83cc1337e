package pluginhost

import (
	"bytes"
	"os"
	"strconv"
)

// cpuTime is the CPU time (user and system, in clock ticks) process pid
// has used, from /proc; -1 when it cannot be read (not Linux, gone). It
// tells a busy plugin (its CPU time grows) from a stopped or wedged one.
func cpuTime(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// The command name, field 2, is in parentheses and may hold spaces:
	// the fields after the last ')' start at field 3 (state).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := bytes.Fields(b[i+1:])
	// utime and stime are fields 14 and 15: f[11] and f[12].
	if len(f) < 13 {
		return -1
	}
	u, err1 := strconv.ParseInt(string(f[11]), 10, 64)
	s, err2 := strconv.ParseInt(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return u + s
}
