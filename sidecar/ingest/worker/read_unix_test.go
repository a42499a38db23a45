//go:build unix

package worker

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/quire-app/quire/sidecar/vault"
)

// TestReadFileNeverFollowsOrBlocks: an inbox file swapped for a link out
// of the vault or a FIFO after the inbox scan is refused at once.
func TestReadFileNeverFollowsOrBlocks(t *testing.T) {
	v := t.TempDir()
	inbox := filepath.Join(v, "Quire", "Inbox")
	os.MkdirAll(inbox, 0o755)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("outside"), 0o644)
	w := New(Options{Vault: v})
	link := filepath.Join(inbox, "link.txt")
	if err := os.Symlink(secret, link); err != nil {
		t.Skip(err)
	}
	if got, err := w.readFile(link); !errors.Is(err, vault.ErrNotRegular) {
		t.Errorf("read a link in the inbox: %q, %v", got.data, err)
	}
	fifo := filepath.Join(inbox, "pipe.txt")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if _, err := w.readFile(fifo); !errors.Is(err, vault.ErrNotRegular) {
		t.Errorf("read a FIFO in the inbox: %v", err)
	}
	// A file outside the vault named by the user may be reached by a link.
	out := filepath.Join(t.TempDir(), "given.txt")
	os.Symlink(secret, out)
	if got, err := w.readFile(out); err != nil || string(got.data) != "outside" {
		t.Errorf("read a linked file outside the vault: %q, %v", got.data, err)
	}
}
