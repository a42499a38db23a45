package grep

import (
	"errors"
	"fmt"
	"io"
)

// readInto reads the regular file at p into buf, reusing its memory, and
// says why when it does not: unreadable, not a regular file (swapped for
// a device or a pipe since the walk), or over maxBytes. A file that
// changes while it is read is read as far as its size was: a grep sees
// the files as they were when it looked.
func readInto(p string, buf []byte, maxBytes int64) ([]byte, string) {
	fh, err := openFile(p)
	if err != nil {
		return buf, "unreadable: " + err.Error()
	}
	defer fh.Close()
	size, regular, err := fh.stat()
	switch {
	case err != nil:
		return buf, "unreadable: " + err.Error()
	case !regular:
		return buf, "not a regular file"
	case size > maxBytes:
		return buf, fmt.Sprintf("too large: %d bytes (cap %d)", size, maxBytes)
	}
	if int64(cap(buf)) < size {
		buf = make([]byte, size)
	}
	n, err := io.ReadFull(fh, buf[:size])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return buf[:0], "unreadable: " + err.Error()
	}
	return buf[:n], ""
}

// handle is an open file, as openFile gives it.
type handle interface {
	io.Reader
	Close() error
	// stat returns the file's size and whether it is a regular file.
	stat() (size int64, regular bool, err error)
}
