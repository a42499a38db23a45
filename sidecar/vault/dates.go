package vault

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DailyNotes is the vault's daily-notes setting
// (.obsidian/daily-notes.json): the folder daily notes are made in and
// their name's format, in moment.js tokens.
type DailyNotes struct {
	Folder string `json:"folder"`
	Format string `json:"format"`
	layout string // Format as a Go layout, "" when it cannot be read
}

// ReadDailyNotes reads the vault's daily-notes setting. Without one (the
// core plugin never configured) Obsidian names daily notes YYYY-MM-DD.
func ReadDailyNotes(root string) DailyNotes {
	var d DailyNotes
	if b, err := os.ReadFile(filepath.Join(root, ".obsidian", "daily-notes.json")); err == nil {
		_ = json.Unmarshal(b, &d) // a broken setting is the default
	}
	d.Folder = strings.Trim(d.Folder, "/")
	if d.Format == "" {
		d.Format = "YYYY-MM-DD"
	}
	d.layout = momentLayout(d.Format)
	return d
}

// Date returns the day a note's name says, when it is a daily note: named
// in the setting's format (the format may hold folders, "YYYY/MM/YYYY-MM-DD")
// and, when the setting names a folder, inside it.
func (d DailyNotes) Date(rel string) (time.Time, bool) {
	if d.layout == "" || !strings.HasSuffix(rel, ".md") {
		return time.Time{}, false
	}
	name := strings.TrimSuffix(rel, ".md")
	if d.Folder != "" {
		var ok bool
		if name, ok = strings.CutPrefix(name, d.Folder+"/"); !ok {
			return time.Time{}, false
		}
	}
	if !strings.Contains(d.layout, "/") {
		name = path.Base(name)
	}
	t, err := time.ParseInLocation(d.layout, name, time.Local)
	return t, err == nil
}

// momentLayout turns a moment.js date format into a Go layout, or "" when
// it uses a token Go cannot parse back (week numbers, ordinals).
func momentLayout(f string) string {
	tokens := []struct{ moment, goLayout string }{
		{"YYYY", "2006"}, {"YY", "06"}, {"MMMM", "January"}, {"MMM", "Jan"}, {"MM", "01"}, {"M", "1"},
		{"DD", "02"}, {"D", "2"}, {"dddd", "Monday"}, {"ddd", "Mon"},
	}
	var b strings.Builder
	for i := 0; i < len(f); {
		if f[i] == '[' { // [literal text]
			j := strings.IndexByte(f[i:], ']')
			if j < 0 {
				return ""
			}
			b.WriteString(f[i+1 : i+j])
			i += j + 1
			continue
		}
		matched := false
		for _, t := range tokens {
			if strings.HasPrefix(f[i:], t.moment) {
				b.WriteString(t.goLayout)
				i += len(t.moment)
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		if c := f[i]; c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
			return "" // a token Go has no layout for (Do, W, ww, Q…)
		}
		b.WriteByte(f[i])
		i++
	}
	return b.String()
}

// maxGitPaths is how many changed notes are dated one `git log` each;
// more, and one walk of the whole history dates them all.
const maxGitPaths = 32

// GitDates returns, for each of paths (vault-relative) that git has
// committed, the time of the last commit that changed it, when the vault
// is a git repository (its root, not a folder inside one). It only reads
// the repository (no locks, no writes). A vault that is not one, a
// missing git program, or a history too long to read within ctx gives
// what was read (maybe nothing): the caller falls back to other dates.
func GitDates(ctx context.Context, root string, paths []string) map[string]time.Time {
	if len(paths) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		return nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	out := map[string]time.Time{}
	if len(paths) <= maxGitPaths {
		for _, p := range paths {
			b, err := git(ctx, root, "log", "-1", "--format=%ct", "--", p)
			if t, ok := unixLine(bytes.TrimSpace(b)); err == nil && ok {
				out[p] = t
			}
		}
		return out
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	// Newest first: a path's first appearance is its last change. What
	// was read before a timeout still holds.
	b, _ := git(ctx, root, "log", "--format=@%ct", "--name-only", "--no-renames", "-z")
	// Fields end in NUL: "@<time>", then "\n<name>", "<name>"…
	var when time.Time
	for _, f := range bytes.Split(b, []byte{0}) {
		f = bytes.TrimLeft(f, "\n")
		if rest, ok := bytes.CutPrefix(f, []byte("@")); ok {
			when, _ = unixLine(rest)
			continue
		}
		if p := string(f); want[p] && !when.IsZero() {
			if _, seen := out[p]; !seen {
				out[p] = when
			}
		}
	}
	return out
}

func unixLine(b []byte) (time.Time, bool) {
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, false
	}
	return time.Unix(n, 0), true
}

// git runs a read-only git command in the repository at root.
func git(ctx context.Context, root string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root, "-c", "core.quotepath=off"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
	return cmd.Output()
}
