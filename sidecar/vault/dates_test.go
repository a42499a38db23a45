package vault

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestDailyNotesDate(t *testing.T) {
	day := func(s string) time.Time {
		d, _ := time.ParseInLocation("2006-01-02", s, time.Local)
		return d
	}
	cases := []struct {
		folder, format, rel string
		want                time.Time
		ok                  bool
	}{
		{"", "", "2026-11-23.md", day("2026-11-23"), true},
		{"", "", "Journal/2026-11-23.md", day("2026-11-23"), true},
		{"Daily", "YYYY-MM-DD", "Daily/2026-11-23.md", day("2026-11-23"), true},
		{"Daily", "YYYY-MM-DD", "Other/2026-11-23.md", time.Time{}, false},
		{"Journal", "YYYY/MM/YYYY-MM-DD", "Journal/2026/11/2026-11-23.md", day("2026-11-23"), true},
		{"", "DD.MM.YYYY", "23.11.2026.md", day("2026-11-23"), true},
		{"", "dddd, MMMM D, YYYY", "Monday, November 23, 2026.md", day("2026-11-23"), true},
		{"", "[Week] ww", "Week 48.md", time.Time{}, false},
		{"", "", "Shopping list.md", time.Time{}, false},
	}
	for _, c := range cases {
		root := t.TempDir()
		if c.folder != "" || c.format != "" {
			os.MkdirAll(filepath.Join(root, ".obsidian"), 0o755)
			setting := fmt.Sprintf(`{"folder":%q,"format":%q}`, c.folder, c.format)
			os.WriteFile(filepath.Join(root, ".obsidian", "daily-notes.json"), []byte(setting), 0o644)
		}
		got, ok := ReadDailyNotes(root).Date(c.rel)
		if ok != c.ok || !got.Equal(c.want) {
			t.Errorf("%q %q: Date(%q) = %v, %v; want %v, %v", c.folder, c.format, c.rel, got, ok, c.want, c.ok)
		}
	}
}

func TestGitDates(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root := t.TempDir()
	run := func(date string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rel, text string) {
		os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755)
		if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("2024-01-01T00:00:00Z", "init", "-q")
	write("a b.md", "one")
	write("old.md", "old")
	run("2024-01-01T00:00:00Z", "add", ".")
	run("2024-01-01T00:00:00Z", "commit", "-qm", "1")
	write("a b.md", "two")
	write("dir/ü.md", "new")
	run("2025-06-01T00:00:00Z", "add", ".")
	run("2025-06-01T00:00:00Z", "commit", "-qm", "2")
	write("untracked.md", "x")

	want := map[string]string{"a b.md": "2025-06-01", "old.md": "2024-01-01", "dir/ü.md": "2025-06-01"}
	paths := []string{"a b.md", "old.md", "dir/ü.md", "untracked.md"}
	// Both ways of reading: one log per path, and one walk of the history.
	for _, many := range []bool{false, true} {
		ps := paths
		if many {
			for i := range maxGitPaths {
				ps = append(ps, fmt.Sprintf("missing-%d.md", i))
			}
		}
		got := GitDates(context.Background(), root, ps)
		if len(got) != len(want) {
			t.Errorf("many=%v: got %d dates %v, want %d", many, len(got), got, len(want))
		}
		for p, d := range want {
			if g := got[p].UTC().Format("2006-01-02"); g != d {
				t.Errorf("many=%v: %s dated %s, want %s", many, p, g, d)
			}
		}
	}
	if got := GitDates(context.Background(), t.TempDir(), paths); len(got) != 0 {
		t.Errorf("a folder that is not a repository has dates %v", got)
	}
}

func TestFrontmatterDates(t *testing.T) {
	n, err := Parse("n.md", []byte("---\ndate: 2024-03-10\nupdated: \"2025-01-02 10:30\"\n---\n# N\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Date.Format("2006-01-02"); got != "2024-03-10" {
		t.Errorf("Date = %s", got)
	}
	if got := n.Updated.Format("2006-01-02 15:04"); got != "2025-01-02 10:30" {
		t.Errorf("Updated = %s", got)
	}
	n, _ = Parse("n.md", []byte("---\ndate: someday\n---\n"))
	if !n.Date.IsZero() {
		t.Errorf("an unreadable date read as %v", n.Date)
	}
}
