//go:build unix

package vault

import "syscall"

// openFlags opens without following a link in the last element and
// without waiting for a FIFO's writer.
const openFlags = syscall.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC
