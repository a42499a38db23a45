//go:build windows

package client

import "syscall"

// detachedProcess is DETACHED_PROCESS: no console, so closing the
// starter's console window does not end the sidecar.
const detachedProcess = 0x00000008

// detached starts a sidecar in a process group of its own without a
// console, so that the MCP client ending its starter does not end it too.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess, HideWindow: true}
}
