package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLockIsExclusive(t *testing.T) {
	dir := t.TempDir()
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: err = %v, want LockedError", err)
	}
	if le.PID != os.Getpid() || !strings.Contains(err.Error(), "pid") {
		t.Errorf("err = %v, want it to name pid %d", err, os.Getpid())
	}
	if le.Cmd != "" || !strings.Contains(err.Error(), "another quire") {
		t.Errorf("err = %v, want an unnamed holder", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	b.Close()
}

// TestLockNamesHolder: the lock file names the holder's command, and the
// error another process gets shows it.
func TestLockNamesHolder(t *testing.T) {
	dir := t.TempDir()
	SetHolder("quire index")
	defer SetHolder("")
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	_, err = Open(dir)
	var le *LockedError
	if !errors.As(err, &le) || le.Cmd != "quire index" || !strings.Contains(err.Error(), "`quire index` (pid") {
		t.Errorf("second Open: %v, want it to name `quire index`", err)
	}
	if h := ReadHolder(dir); h.PID != os.Getpid() || h.Cmd != "quire index" {
		t.Errorf("ReadHolder = %+v", h)
	}
}

// TestHeld: the lock says whether the folder is held, whatever pid its
// file names.
func TestHeld(t *testing.T) {
	dir := t.TempDir()
	if Held(dir) {
		t.Error("held before any lock file")
	}
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !Held(dir) {
		t.Error("not held while open")
	}
	d.Close()
	if err := os.WriteFile(filepath.Join(dir, "lock"), []byte("1\nquire serve\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if Held(dir) {
		t.Error("held after close, with a stale pid in the file")
	}
}

// TestOneEnginePerVault: two state folders of one vault cannot both be
// open for it; once the first is closed the second opens.
func TestOneEnginePerVault(t *testing.T) {
	vault := t.TempDir()
	a, err := OpenFor(vault, filepath.Join(vault, DefaultName))
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	if b, err := OpenFor(vault, elsewhere); !errors.Is(err, ErrLocked) || !strings.Contains(fmt.Sprint(err), vault) {
		if b != nil {
			b.Close()
		}
		t.Fatalf("second state folder of the vault: %v, want ErrLocked naming the vault", err)
	}
	if Held(elsewhere) {
		t.Error("the refused state folder's lock is still held")
	}
	// Another vault is free.
	other, err := OpenFor(t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	a.Close()
	b, err := OpenFor(vault, elsewhere)
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	b.Close()
}

// TestSecret: a state folder's secret is made once, kept, and only its
// owner can read it.
func TestSecret(t *testing.T) {
	dir := t.TempDir()
	a, err := Secret(dir)
	if err != nil || len(a) != 64 {
		t.Fatalf("Secret = %q, %v", a, err)
	}
	b, err := Secret(dir)
	if err != nil || b != a {
		t.Errorf("second Secret = %q, %v; want the first", b, err)
	}
	if st, err := os.Stat(filepath.Join(dir, SecretFileName)); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("secret file: %v, %v; want mode 0600", st, err)
	}
}
