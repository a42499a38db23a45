package compile

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// compileN compiles sources first..last-1, each a different text, into
// the vault with a log of at most limit entries.
func compileN(t *testing.T, vault string, first, last, limit int) {
	t.Helper()
	for i := first; i < last; i++ {
		doc := articleDoc(t)
		doc.Text += strings.Repeat(" more", i+1)
		if _, err := Compile(context.Background(), source(doc, "https://crumb.example/"+itoa(i)),
			Options{Vault: vault, Folder: "Quire", LogEntries: limit}); err != nil {
			t.Fatal(err)
		}
	}
}

// entries returns the log entry lines of a note.
func entries(note string) []string {
	var out []string
	for _, l := range strings.Split(note, "\n") {
		if logEntry.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// archives returns the archive notes' paths and the notes by path.
func archives(t *testing.T, vault string) (paths []string, notes map[string]string) {
	notes = snapshot(t, vault, "Quire/Log")
	for p := range notes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, notes
}

// TestLogArchived: log.md keeps at most LogEntries entries; the oldest
// move to archive notes under Log/, each entry exactly once across them,
// linked from log.md and from each archive to the one before. A run
// stopped between the archive and log.md makes no second archive. A
// log.md the user edited is never archived: it keeps growing, with every
// word of theirs where they put it.
func TestLogArchived(t *testing.T) {
	vault := t.TempDir()
	const limit = 4
	compileN(t, vault, 0, limit+1, limit)

	log := readFile(t, vault, "Quire/log.md")
	paths, notes := archives(t, vault)
	if len(paths) != 1 {
		t.Fatalf("after %d sources with a limit of %d: archives %v, want one; log.md:\n%s", limit+1, limit, paths, log)
	}
	first := paths[0]
	if _, sealed := ours([]byte(log)); !sealed {
		t.Errorf("log.md is not sealed:\n%s", log)
	}
	if _, sealed := ours([]byte(notes[first])); !sealed || !strings.Contains(notes[first], "quire_kind: log-archive") {
		t.Errorf("%s is not a sealed archive:\n%s", first, notes[first])
	}
	link := "[[" + strings.TrimSuffix(first, ".md") + "|"
	if !strings.Contains(log, olderPrefix+link) {
		t.Errorf("log.md does not link %s:\n%s", first, log)
	}
	if got := len(entries(log)); got != limit+1-limit/2 {
		t.Errorf("log.md holds %d entries, want %d:\n%s", got, limit+1-limit/2, log)
	}
	if got := len(entries(notes[first])); got != limit/2 {
		t.Errorf("%s holds %d entries, want %d", first, got, limit/2)
	}
	all := append(entries(notes[first]), entries(log)...)
	if len(all) != limit+1 {
		t.Errorf("%d entries in all, want %d", len(all), limit+1)
	}
	seen := map[string]bool{}
	for i, e := range all {
		if seen[e] {
			t.Errorf("entry %d twice: %s", i, e)
		}
		seen[e] = true
	}

	// A run stopped after writing the archive, before log.md: log.md is
	// as before that run, and the run's source is compiled again.
	before := log
	compileN(t, vault, limit+1, limit+3, limit) // a second archive
	paths, notes = archives(t, vault)
	if len(paths) != 2 {
		t.Fatalf("archives %v, want two", paths)
	}
	second := paths[0]
	if second == first {
		second = paths[1]
	}
	if !strings.Contains(notes[second], earlierPrefix+link) {
		t.Errorf("%s does not link the archive before it:\n%s", second, notes[second])
	}
	if err := os.WriteFile(filepath.Join(vault, "Quire", "log.md"), []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	compileN(t, vault, limit+1, limit+3, limit)
	if again, _ := archives(t, vault); len(again) != 2 {
		t.Errorf("after a run stopped between archive and log.md: archives %v, want the same two", again)
	}
	if after := readFile(t, vault, "Quire/log.md"); len(entries(after)) != limit+3-2*(limit/2) || !strings.Contains(after, olderPrefix+"[["+strings.TrimSuffix(second, ".md")+"|") {
		t.Errorf("log.md after the rerun:\n%s", after)
	}

	// The user writes into log.md: it is never archived again.
	log = readFile(t, vault, "Quire/log.md")
	const mine = "My remark: the rye article was the best one.\n"
	edited := strings.Replace(log, "# Quire log\n", "# Quire log\n\n"+mine, 1)
	if err := os.WriteFile(filepath.Join(vault, "Quire", "log.md"), []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	compileN(t, vault, limit+3, limit+3+2*limit, limit)
	log = readFile(t, vault, "Quire/log.md")
	if !strings.HasPrefix(log, edited) {
		t.Errorf("the user's log.md was not only appended to:\n%s", log)
	}
	if got := len(entries(log)); got != len(entries(edited))+2*limit {
		t.Errorf("edited log.md holds %d entries, want %d", got, len(entries(edited))+2*limit)
	}
	if again, _ := archives(t, vault); len(again) != 2 {
		t.Errorf("an edited log.md was archived: %v", again)
	}
}
