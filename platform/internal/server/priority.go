package server

import "github.com/banmen/banmen/platform/internal/nice"

// lowerPriority gives every thread of process pid the lowest CPU priority
// (nice 19), so that on a busy machine the analysis processes get only
// what the rooms' processes leave.
func lowerPriority(pid int) error { return nice.Process(pid, 19) }
