package sdktest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// stopwatch times a call for a deadline check. It counts the wall time the
// call took less the time the processes doing the work (the test binary and,
// across the boundary, the plugin) were ready to run but waited for a CPU,
// as Linux's schedstat reports it. So on an idle machine the check is the
// plain wall-clock one, and on a loaded machine it measures the variant, not
// the load: a Suggest that sleeps or computes past its deadline is still
// caught, one that was merely not scheduled is not blamed. Elsewhere than
// Linux the waiting time reads as zero.
type stopwatch struct {
	t0     time.Time
	waited time.Duration
	pids   []int
}

func (s *suite) stopwatch() stopwatch {
	return stopwatch{t0: time.Now(), waited: runqueueWait(s.c.pids), pids: s.c.pids}
}

// elapsed is the time since the stopwatch started, less the time waited
// for a CPU meanwhile.
func (w stopwatch) elapsed() time.Duration {
	el := time.Since(w.t0) - (runqueueWait(w.pids) - w.waited)
	return max(el, 0)
}

// runqueueWait sums the time every thread of this process and of pids has
// spent runnable but not running (the second field of schedstat).
func runqueueWait(pids []int) time.Duration {
	var sum time.Duration
	for _, p := range append([]string{"self"}, intsToStrings(pids)...) {
		tasks, _ := filepath.Glob(filepath.Join("/proc", p, "task", "*", "schedstat"))
		for _, f := range tasks {
			b, err := os.ReadFile(f)
			if err != nil {
				continue // the thread ended
			}
			if fields := strings.Fields(string(b)); len(fields) >= 2 {
				if ns, err := strconv.ParseInt(fields[1], 10, 64); err == nil {
					sum += time.Duration(ns)
				}
			}
		}
	}
	return sum
}

func intsToStrings(xs []int) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Itoa(x)
	}
	return out
}
