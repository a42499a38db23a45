//go:build !linux && !windows

package use

// lowerThreadPriority does nothing here: elsewhere setpriority changes the
// whole process (macOS's per-thread background band would also throttle
// its disk access), so embedding threads keep the normal priority.
func lowerThreadPriority() {}

func threadPriority() (int, bool) { return 0, false }
