//go:build unix

package state

import (
	"io"
	"os"
	"syscall"
)

func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// lockVault takes an exclusive lock on the vault folder itself, which
// every engine of the vault sees whatever its state folder (a per-user
// folder would not do: a sandboxed Obsidian has its own). It reports
// ErrLocked when another holds it, and the folder's open error when it
// cannot be opened.
func lockVault(vault string) (io.Closer, error) {
	f, err := os.Open(vault)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, ErrLocked
	}
	return f, nil // closing it releases the lock
}
