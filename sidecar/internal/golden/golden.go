// Package golden compares what a test made with a golden file, or
// rewrites the file when the test runs with -update.
package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// File compares got with the file at path, or writes got there when
// update is set (the package's -update flag).
func File(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s changed; run go test -update if that is right, and the plugin's tests\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
