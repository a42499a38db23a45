package state

import (
	"errors"
	"os"
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
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	b.Close()
}
