package use

import (
	"log/slog"

	"golang.org/x/sys/windows"
)

var (
	setThreadPriority = windows.NewLazySystemDLL("kernel32.dll").NewProc("SetThreadPriority")
	getThreadPriority = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetThreadPriority")
)

// threadPriorityBelowNormal is THREAD_PRIORITY_BELOW_NORMAL (-1).
var threadPriorityBelowNormal int32 = -1

// lowerThreadPriority sets the calling OS thread below normal priority.
func lowerThreadPriority() {
	h, _ := windows.GetCurrentThread() // a pseudo handle: never fails, never closed
	if r, _, err := setThreadPriority.Call(uintptr(h), uintptr(threadPriorityBelowNormal) /* sign-extended, as the API's int */); r == 0 {
		slog.Debug("embed: lower thread priority", "err", err)
	}
}

// threadPriority reports the calling thread's priority as a niceness
// (positive: below normal), for tests.
func threadPriority() (int, bool) {
	h, _ := windows.GetCurrentThread()
	r, _, _ := getThreadPriority.Call(uintptr(h))
	return -int(int32(r)), true
}
