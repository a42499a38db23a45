package use

import (
	"time"

	"golang.org/x/sys/windows"
)

// cpuTime is the process's user+system time, so benchmarks on a shared
// machine can report work per CPU second as well as per wall second.
func cpuTime() time.Duration {
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user); err != nil {
		return 0
	}
	// Filetimes count 100 ns ticks.
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration(ticks(kernel)+ticks(user)) * 100
}
