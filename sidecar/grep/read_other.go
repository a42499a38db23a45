//go:build !unix

package grep

import "os"

func openFile(p string) (handle, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

// osFile is a file opened through package os.
type osFile struct{ *os.File }

func (f osFile) stat() (int64, bool, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, false, err
	}
	return st.Size(), st.Mode().IsRegular(), nil
}
