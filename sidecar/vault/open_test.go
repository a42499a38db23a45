//go:build unix

package vault

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadFileRefusesSwappedFiles swaps an indexed note for a link to a
// file outside the vault, a link to /dev/zero, and a FIFO: each read
// fails at once with a clear reason instead of leaking, growing or
// hanging. The test would hang on the FIFO without O_NONBLOCK.
func TestReadFileRefusesSwappedFiles(t *testing.T) {
	vault := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("outside secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	note := filepath.Join(vault, "Note.md")
	swaps := map[string]func() error{
		"link outside":      func() error { return os.Symlink(outside, note) },
		"link to /dev/zero": func() error { return os.Symlink("/dev/zero", note) },
		"fifo":              func() error { return syscall.Mkfifo(note, 0o644) },
		"folder":            func() error { return os.Mkdir(note, 0o755) },
	}
	for name, swap := range swaps {
		t.Run(name, func(t *testing.T) {
			os.RemoveAll(note)
			if err := swap(); err != nil {
				t.Skip(err)
			}
			data, err := ReadFile(vault, "Note.md", 1<<20)
			if err == nil || !errors.Is(err, ErrNotRegular) {
				t.Errorf("ReadFile = %q, %v; want ErrNotRegular", data, err)
			}
			if _, err := Read(vault, "Note.md", 1<<20); err == nil {
				t.Errorf("Read accepted %s", name)
			}
		})
	}
	os.RemoveAll(note)
	if err := os.WriteFile(note, make([]byte, 2000), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(vault, "Note.md", 1000); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadFile of 2,000 bytes with a cap of 1,000: %v, want ErrTooLarge", err)
	}
	os.WriteFile(note, []byte("# Hi\n"), 0o644)
	if b, err := ReadFile(vault, "Note.md", 1000); err != nil || string(b) != "# Hi\n" {
		t.Errorf("ReadFile = %q, %v", b, err)
	}
}

// TestReadFileLinkedFolder: a folder on the way that links outside the
// vault does not lead out.
func TestReadFileLinkedFolder(t *testing.T) {
	vault, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "x.md"), []byte("outside"), 0o644)
	if err := os.Symlink(outside, filepath.Join(vault, "Out")); err != nil {
		t.Skip(err)
	}
	if b, err := ReadFile(vault, "Out/x.md", 1000); err == nil {
		t.Errorf("read %q through a linked folder", b)
	}
}
