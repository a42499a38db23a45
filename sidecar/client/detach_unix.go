//go:build unix

package client

import "syscall"

// detached puts a started sidecar in a session of its own, so that the
// terminal or MCP client that ends its starter's process group does not
// end it too.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
