// Package state owns the folder where Quire keeps what it derives from a
// vault (by default <vault>/.quire): its layout and the lock that lets one
// process at a time use it.
package state

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
)

// Dir is a state folder.
type Dir struct {
	Path  string
	lock  *os.File
	vault io.Closer // the vault's own lock (OpenFor), or nil
}

// DefaultName is the state folder's name inside a vault.
const DefaultName = ".quire"

// ErrLocked is returned when another process holds the state folder.
var ErrLocked = errors.New("state folder in use")

// LockedError names the process holding the lock and, when it said, its
// command (`quire serve`, `quire index`…), so that the user knows what to
// wait for or stop.
type LockedError struct {
	Dir string
	PID int
	// Cmd is the holder's command as it wrote it in the lock file; empty
	// for a holder that did not.
	Cmd string
}

func (e *LockedError) Error() string {
	who := "another quire"
	if e.Cmd != "" {
		who = "`" + e.Cmd + "`"
	}
	if e.PID > 0 {
		return fmt.Sprintf("%s is in use by %s (pid %d)", e.Dir, who, e.PID)
	}
	return e.Dir + " is in use by " + who
}

func (e *LockedError) Unwrap() error { return ErrLocked }

// Resolve returns the state folder for a vault: override if set, else
// <vault>/.quire, or, when the vault cannot be written to and has no
// state folder yet, a folder under the user's cache directory named after
// the vault, so a read-only vault can still be searched.
func Resolve(vaultDir, override string) string {
	if override != "" {
		return override
	}
	inVault := filepath.Join(vaultDir, DefaultName)
	if _, err := os.Stat(inVault); err == nil || writable(vaultDir) {
		return inVault
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return inVault
	}
	abs, _ := filepath.Abs(vaultDir)
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(cache, "quire", filepath.Base(abs)+"-"+hex.EncodeToString(sum[:4]))
}

// writable reports whether Quire may create its folder in dir. A folder
// without write permission is read-only to us even when running as root.
func writable(dir string) bool {
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm()&0o200 == 0 {
		return false
	}
	f, err := os.CreateTemp(dir, ".quire-probe-*")
	if err != nil {
		return false
	}
	name := f.Name()
	f.Close()
	return os.Remove(name) == nil
}

// Open creates the folder if needed and takes its exclusive lock.
func Open(path string) (*Dir, error) {
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, fmt.Errorf("create state folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(path, "lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		h := ReadHolder(path)
		return nil, &LockedError{Dir: path, PID: h.PID, Cmd: h.Cmd}
	}
	if err := f.Truncate(0); err == nil {
		line := strconv.Itoa(os.Getpid()) + "\n"
		if cmd := holder.Load(); cmd != nil {
			line += *cmd + "\n"
		}
		_, _ = f.WriteAt([]byte(line), 0)
	}
	return &Dir{Path: path, lock: f}, nil
}

// OpenFor opens the state folder at path (see Open) for the vault at
// vaultDir and takes the vault's own lock too: two engines of one vault
// with different state folders (the plugin's moved outside the vault,
// quire mcp's in it) would both work Quire/Inbox/ and delete each
// other's temporary files. A vault held by another engine is an error
// wrapping ErrLocked; a vault folder that is missing takes no
// lock (there is nothing to work on).
func OpenFor(vaultDir, path string) (*Dir, error) {
	d, err := Open(path)
	if err != nil {
		return nil, err
	}
	v, err := lockVault(vaultDir)
	switch {
	case errors.Is(err, ErrLocked):
		d.Close()
		return nil, fmt.Errorf("vault %s is in use by another quire, with another state folder: %w", vaultDir, ErrLocked)
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		d.Close()
		return nil, fmt.Errorf("lock vault: %w", err)
	}
	d.vault = v
	return d, nil
}

// holder is the command this process writes in the lock files it takes.
var holder atomic.Pointer[string]

// SetHolder sets the command this process names in the lock files it
// takes from now on (e.g. "quire index"), which another process's
// LockedError shows.
func SetHolder(cmd string) { holder.Store(&cmd) }

// Holder is what a lock file says about the process that wrote it.
type Holder struct {
	PID int
	Cmd string
}

// ReadHolder reads the lock file of the state folder at path: the pid
// and command of the process that last took it. A lock file that is
// free, or being written, reads as a zero or partial Holder; only the
// lock itself says whether it is held.
func ReadHolder(path string) Holder {
	data, _ := os.ReadFile(filepath.Join(path, "lock"))
	pid, cmd, _ := strings.Cut(string(data), "\n")
	n, _ := strconv.Atoi(strings.TrimSpace(pid))
	return Holder{PID: n, Cmd: strings.TrimSpace(cmd)}
}

// Held reports whether a process (this one included) holds the lock of
// the state folder at path. The lock, not the pid its file names, is the
// truth: after a kill -9 the file keeps a pid that the system may give to
// any other process. A free lock is taken for an instant to tell.
func Held(path string) bool {
	f, err := os.OpenFile(filepath.Join(path, "lock"), os.O_RDWR, 0)
	if err != nil {
		return false // no lock file: nothing ever held it
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return true
	}
	_ = unlockFile(f)
	return false
}

// Join returns a path inside the state folder.
func (d *Dir) Join(name ...string) string {
	return filepath.Join(append([]string{d.Path}, name...)...)
}

// Close releases the lock.
func (d *Dir) Close() error {
	if d.lock == nil {
		return nil
	}
	if d.vault != nil {
		_ = d.vault.Close()
		d.vault = nil
	}
	_ = d.lock.Truncate(0)
	err := unlockFile(d.lock)
	d.lock.Close()
	d.lock = nil
	return err
}
