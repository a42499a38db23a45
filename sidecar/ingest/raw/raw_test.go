package raw

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestSafeName(t *testing.T) {
	long := strings.Repeat("a", 300) + ".pdf"
	longUTF := strings.Repeat("é", 100) + ".pdf" // 200 bytes of stem
	tests := []struct {
		in, want string
	}{
		{"report.pdf", "report.pdf"},
		{"Report.PDF", "Report.pdf"},
		{"../../etc/passwd", "etc-passwd"},
		{`..\..\Windows\win.ini`, "Windows-win.ini"},
		{"/abs/path.html", "abs-path.html"},
		{"..", "source"},
		{".", "source"},
		{"", "source"},
		{".hidden", "hidden"},
		{"trailing. ", "trailing"},
		{"a\x00b\x07c\x7f.txt", "abc.txt"},
		{"line\nbreak\ttab.md", "line-break-tab.md"},
		{"evil\u202efdp.exe", "evilfdp.exe"}, // right-to-left override removed
		{`what? "quoted" <x> | y * z : w.html`, "what- -quoted- -x- - y - z - w.html"},
		{"CON", "CON_"},
		{"con.pdf", "con_.pdf"},
		{"nul.tar.gz", "nul.tar_.gz"},
		{"COM1.txt", "COM1_.txt"},
		{"lpt9", "lpt9_"},
		{"COM10.txt", "COM10.txt"},
		{"console.txt", "console.txt"},
		{"e\u0301te\u0301.md", "été.md"}, // NFD to NFC
		{"page.weird-ext!", "page.weird-ext!"},
		{long, strings.Repeat("a", MaxNameBytes-4) + ".pdf"},
		{longUTF, strings.Repeat("é", (MaxNameBytes-4)/2) + ".pdf"},
	}
	for _, tt := range tests {
		got := SafeName(tt.in)
		if got != tt.want {
			t.Errorf("SafeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if len(got) > MaxNameBytes {
			t.Errorf("SafeName(%q) is %d bytes, over %d", tt.in, len(got), MaxNameBytes)
		}
		if strings.ContainsAny(got, `/\`) || got == ".." || strings.HasPrefix(got, ".") {
			t.Errorf("SafeName(%q) = %q is not a plain file name", tt.in, got)
		}
	}
}

func TestSaveNeverOverwrites(t *testing.T) {
	vault := t.TempDir()
	var got []string
	for i := range 3 {
		rel, err := Save(vault, Folder, "paper.pdf", []byte(fmt.Sprintf("version %d", i)))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rel)
	}
	want := []string{"Quire/raw/paper.pdf", "Quire/raw/paper-2.pdf", "Quire/raw/paper-3.pdf"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("save %d: got %q, want %q", i, got[i], want[i])
		}
		b, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(want[i])))
		if err != nil {
			t.Fatal(err)
		}
		if w := fmt.Sprintf("version %d", i); string(b) != w {
			t.Errorf("%s holds %q, want %q", want[i], b, w)
		}
	}
	assertNoTemp(t, filepath.Join(vault, "Quire", "raw"))
}

func TestSaveKeepsUserFile(t *testing.T) {
	vault := t.TempDir()
	dir := filepath.Join(vault, "Quire", "raw")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("mine"), 0o644)
	rel, err := Save(vault, "Quire/raw", "notes.md", []byte("clip"))
	if err != nil {
		t.Fatal(err)
	}
	if rel != "Quire/raw/notes-2.md" {
		t.Errorf("got %q, want Quire/raw/notes-2.md", rel)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.md")); string(b) != "mine" {
		t.Errorf("user file changed to %q", b)
	}
}

func TestSaveUnsafeNamesStayInFolder(t *testing.T) {
	vault := t.TempDir()
	names := []string{"../../escape.txt", "../outside.txt", "/etc/passwd", `..\..\win.txt`, "a/../../b.txt", "..", ""}
	for _, name := range names {
		rel, err := Save(vault, Folder, name, []byte("x"))
		if err != nil {
			t.Fatalf("Save(%q): %v", name, err)
		}
		if !strings.HasPrefix(rel, "Quire/raw/") || strings.Count(rel, "/") != 2 {
			t.Errorf("Save(%q) = %q, want a file directly in Quire/raw", name, rel)
		}
	}
	// Nothing but Quire/ exists in the vault, and nothing but raw/ in Quire/.
	entries, _ := os.ReadDir(vault)
	if len(entries) != 1 || entries[0].Name() != "Quire" {
		t.Errorf("vault holds %v, want only Quire", names2(entries))
	}
	entries, _ = os.ReadDir(filepath.Join(vault, "Quire"))
	if len(entries) != 1 || entries[0].Name() != "raw" {
		t.Errorf("Quire holds %v, want only raw", names2(entries))
	}
}

func TestSaveRefusesBadFolder(t *testing.T) {
	vault := t.TempDir()
	for _, folder := range []string{"../raw", "/tmp/raw", ".", "", "Quire/../../x"} {
		if _, err := Save(vault, folder, "a.txt", []byte("x")); !errors.Is(err, ErrFolder) {
			t.Errorf("Save in folder %q: got %v, want ErrFolder", folder, err)
		}
	}
}

func TestSaveRefusesSymlinkOut(t *testing.T) {
	vault := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(vault, "Quire")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, err := Save(vault, Folder, "a.txt", []byte("x")); err == nil {
		t.Error("Save followed a symlink out of the vault")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("Save wrote outside the vault: %v", names2(entries))
	}
}

// A write that fails half way leaves neither the final name nor the
// temporary file.
func TestSaveFailureLeavesNothing(t *testing.T) {
	vault := t.TempDir()
	boom := errors.New("disk full")
	old := write
	write = func(w io.Writer, data []byte) error {
		w.Write(data[:len(data)/2])
		return boom
	}
	defer func() { write = old }()
	if _, err := Save(vault, Folder, "big.pdf", bytes.Repeat([]byte("x"), 1<<16)); !errors.Is(err, boom) {
		t.Fatalf("got %v, want %v", err, boom)
	}
	entries, _ := os.ReadDir(filepath.Join(vault, "Quire", "raw"))
	if len(entries) != 0 {
		t.Errorf("failed save left %v", names2(entries))
	}
}

// Concurrent saves of one name each get their own file, and a reader
// watching the folder never sees a visible file shorter than its content.
func TestSaveConcurrentAtomic(t *testing.T) {
	vault := t.TempDir()
	dir := filepath.Join(vault, "Quire", "raw")
	const n = 8
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB

	stop := make(chan struct{})
	var partial []string
	var watch sync.WaitGroup
	watch.Add(1)
	go func() {
		defer watch.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					continue
				}
				if info, err := e.Info(); err == nil && info.Size() != int64(len(data)) {
					partial = append(partial, fmt.Sprintf("%s (%d bytes)", e.Name(), info.Size()))
				}
			}
		}
	}()

	var wg sync.WaitGroup
	rels := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rel, err := Save(vault, Folder, "same.html", data)
			if err != nil {
				t.Error(err)
			}
			rels[i] = rel
		}()
	}
	wg.Wait()
	close(stop)
	watch.Wait()

	if len(partial) > 0 {
		t.Errorf("reader saw partial files: %v", partial)
	}
	seen := map[string]bool{}
	for _, rel := range rels {
		if seen[rel] {
			t.Errorf("two saves got %q", rel)
		}
		seen[rel] = true
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != n {
		t.Errorf("folder holds %d entries, want %d: %v", len(entries), n, names2(entries))
	}
	assertNoTemp(t, dir)
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func names2(entries []os.DirEntry) []string {
	var s []string
	for _, e := range entries {
		s = append(s, e.Name())
	}
	return s
}
