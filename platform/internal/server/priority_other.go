//go:build !linux

package server

// lowerPriority does nothing here: the analysis processes keep their
// priority, bounded by the pool alone.
func lowerPriority(int) error { return nil }
