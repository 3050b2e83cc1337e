package pluginhost

import (
	"bytes"
	"os"
	"strconv"
)

// activity is what a process did, from /proc: the CPU time it used (user
// and system, in clock ticks) and, summed over its threads, the time they
// waited on a run queue for a CPU (nanoseconds; -1 when the kernel does not
// say). A busy plugin's CPU time grows; on a machine with every CPU taken,
// a busy plugin that gets no CPU (a niced one) is still waiting to run.
// A stopped or deadlocked plugin does neither.
type activity struct {
	cpu, waited int64
}

// minWaitGrowth is the run-queue wait that counts as wanting to run: a
// deadlocked Go process's monitor thread, waking now and then, waits far
// less.
const minWaitGrowth = 5_000_000 // 5 ms

// activityOf reads process pid's activity; ok is false when it cannot be
// read (not Linux, gone).
func activityOf(pid int) (activity, bool) {
	a := activity{cpu: cpuTime(pid), waited: -1}
	if a.cpu < 0 {
		return a, false
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return a, true
	}
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/schedstat")
		if err != nil {
			continue
		}
		f := bytes.Fields(b)
		if len(f) < 2 {
			continue
		}
		w, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil {
			continue
		}
		if a.waited < 0 {
			a.waited = 0
		}
		a.waited += w
	}
	return a, true
}

// progressed reports whether the process did something between before and
// a: used CPU, or waited to run (not merely a thread's wake-up).
func (a activity) progressed(before activity) bool {
	if a.cpu != before.cpu {
		return true
	}
	return a.waited >= 0 && before.waited >= 0 && a.waited-before.waited >= minWaitGrowth
}

// cpuTime is the CPU time (user and system, in clock ticks) process pid
// has used, from /proc; -1 when it cannot be read (not Linux, gone).
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
