package use

import (
	"log/slog"

	"golang.org/x/sys/unix"
)

// backgroundNice is how much nicer than the rest of the process embedding
// threads run: the scheduler gives a thread at nice 10 about a tenth of the
// CPU share of one at 0 when both want the same core, and all of it when
// nothing else does.
const backgroundNice = 10

// lowerThreadPriority makes the calling OS thread backgroundNice nicer than
// it is (at most 19), so that it stays below the searches even when the
// whole process was started under nice; on Linux setpriority with a thread
// id affects that thread only.
func lowerThreadPriority() {
	cur, ok := threadPriority()
	if !ok {
		return
	}
	if err := unix.Setpriority(unix.PRIO_PROCESS, unix.Gettid(), min(cur+backgroundNice, 19)); err != nil {
		slog.Debug("embed: lower thread priority", "err", err)
	}
}

// threadPriority reports the calling thread's niceness, for tests.
func threadPriority() (int, bool) {
	// The raw syscall returns 20-nice so that it is never negative.
	p, err := unix.Getpriority(unix.PRIO_PROCESS, unix.Gettid())
	if err != nil {
		return 0, false
	}
	return 20 - p, true
}
