//go:build unix

package use

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system time, so benchmarks on a shared
// machine can report work per CPU second as well as per wall second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
