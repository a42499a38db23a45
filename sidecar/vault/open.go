package vault

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Reading a vault file safely. The scan only lists regular files, but a
// file can be swapped for a link to a file outside the vault, /dev/zero or
// a FIFO between the scan and a read: every read of a vault file opens it
// without following a link (O_NOFOLLOW where the system has it; elsewhere
// the opened file must be the one Lstat saw), without blocking
// (O_NONBLOCK: a FIFO would wait for a writer), accepts only a regular
// file, and reads at most maxBytes.

// ErrNotRegular is wrapped by ReadFile's error for a path that is a link,
// a folder, a device, a FIFO or a socket.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by ReadFile's error for a file over the cap.
var ErrTooLarge = errors.New("too large")

// ReadFile reads the vault-relative file rel under root: a regular file,
// not through a symbolic link in its last element, and at most maxBytes
// (0 or less means no cap). Folders on the way are resolved inside root:
// a link among them may not lead outside the vault.
func ReadFile(root, rel string, maxBytes int64) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	name := filepath.FromSlash(rel)
	before, err := r.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(before.Mode()))}
	}
	f, err := r.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || !os.SameFile(before, st) {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: fmt.Errorf("%w (replaced while opened)", ErrNotRegular)}
	}
	limit := maxBytes
	if limit <= 0 {
		limit = 1 << 62
	}
	if st.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: fmt.Errorf("%w: %d bytes, over %d", ErrTooLarge, st.Size(), maxBytes)}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: rel, Err: fmt.Errorf("%w: over %d bytes", ErrTooLarge, maxBytes)}
	}
	return data, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}
