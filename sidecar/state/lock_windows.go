//go:build windows

package state

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

func lockFile(f *os.File) error {
	ol := new(windows.Overlapped)
	return windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
}

func unlockFile(f *os.File) error {
	ol := new(windows.Overlapped)
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol)
}

// lockVault takes a lock on the vault that every engine of the vault sees
// whatever its state folder: a named mutex of the session, named after
// the vault's path (a folder cannot be locked like a file on Windows). It
// reports ErrLocked when another process holds it.
func lockVault(vault string) (io.Closer, error) {
	real, err := filepath.EvalSymlinks(vault)
	if err != nil {
		return nil, err
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(strings.ToLower(real)))
	name, err := windows.UTF16PtrFromString(`Local\quire-vault-` + hex.EncodeToString(sum[:16]))
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateMutex(nil, false, name)
	if errors.Is(err, windows.ERROR_ALREADY_EXISTS) {
		windows.CloseHandle(h)
		return nil, ErrLocked
	}
	if err != nil {
		return nil, err
	}
	return mutex(h), nil
}

// mutex is a named mutex's handle: closing the last one removes it.
type mutex windows.Handle

func (m mutex) Close() error { return windows.CloseHandle(windows.Handle(m)) }
