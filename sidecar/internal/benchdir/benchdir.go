// Package benchdir finds shared/bench, the real corpora and fixture notes
// that tests read in place (never copied into the project): beside the
// repository, as CI lays it out, or where QUIRE_BENCH says.
package benchdir

import (
	"os"
	"path/filepath"
	"testing"
)

// Find returns the bench folder, or "" when there is none.
func Find() string {
	if d := os.Getenv("QUIRE_BENCH"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		if st, err := os.Stat(filepath.Join(d, "..", "shared", "bench")); err == nil && st.IsDir() {
			if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
				return filepath.Join(d, "..", "shared", "bench")
			}
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Require returns the bench folder joined with elem. Without one the test
// is skipped on a developer's machine and fails under CI, where a missing
// corpus would otherwise turn a guard into a test that cannot fail.
func Require(t testing.TB, elem ...string) string {
	t.Helper()
	d := Find()
	if d == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no shared/bench beside the repository (set QUIRE_BENCH)")
		}
		t.Skip("no shared/bench beside the repository (set QUIRE_BENCH)")
	}
	p := filepath.Join(append([]string{d}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("bench: %v", err)
	}
	return p
}
