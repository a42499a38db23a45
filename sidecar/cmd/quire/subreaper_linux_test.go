package main

import (
	"syscall"
	"testing"
)

// subreaper makes this test process adopt orphaned descendants, so that
// an engine whose parent was killed becomes its child and can be reaped:
// a zombie under a container's init would look alive to kill(pid, 0).
func subreaper(t *testing.T) {
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		t.Logf("prctl(PR_SET_CHILD_SUBREAPER): %v", errno)
	}
}
