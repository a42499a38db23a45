package secondbrain

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/eval"
)

// TestWrite builds the vault and checks what the tests that use it rely
// on: the history's dates as git reports them, the parts the notes play,
// and questions.json as quire eval reads it.
func TestWrite(t *testing.T) {
	v, err := Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(v.Notes); n != 25 {
		t.Errorf("%d notes, want 25", n)
	}
	for _, note := range v.Notes {
		out, err := exec.Command("git", "-C", v.Dir, "log", "-1", "--format=%aI", "--", note).Output()
		if err != nil {
			t.Fatal(err)
		}
		got, err := time.Parse(time.RFC3339, strings.TrimSpace(string(out)))
		if err != nil || !got.Equal(v.LastCommit[note]) {
			t.Errorf("%s: git log says %q, want %s", note, out, v.LastCommit[note].Format(time.RFC3339))
		}
	}
	if got := v.LastCommit[v.Newer]; !got.After(v.LastCommit[v.Older]) || got.Year() != 2026 || v.LastCommit[v.Older].Year() != 2024 {
		t.Errorf("%s committed %s, %s %s; want the newer one in 2026, the older in 2024", v.Newer, got, v.Older, v.LastCommit[v.Older])
	}
	if out, _ := exec.Command("git", "-C", v.Dir, "status", "--porcelain").Output(); len(out) != 0 {
		t.Errorf("uncommitted files:\n%s", out)
	}

	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(v.Dir, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read(".obsidian/daily-notes.json"); strings.TrimSpace(got) != `{"folder":"Daily","format":"YYYY-MM-DD"}` {
		t.Errorf("daily-notes.json = %s", got)
	}
	lastMonday := Today.AddDate(0, 0, -int(Today.Weekday()+6)%7-7)
	for _, d := range v.LastWeek {
		day, err := time.Parse("Daily/2006-01-02.md", d)
		if err != nil || day.Before(lastMonday.Truncate(24*time.Hour)) || !day.Before(lastMonday.AddDate(0, 0, 7)) {
			t.Errorf("%s is not in the week of %s", d, lastMonday.Format("2006-01-02"))
		}
	}
	if first, last := v.Daily[0], v.Daily[len(v.Daily)-1]; first != "Daily/2026-11-12.md" || last != "Daily/2026-12-02.md" {
		t.Errorf("daily notes from %s to %s, want three weeks to the day before Today", first, last)
	}
	for i, p := range v.Superseded {
		next := v.Successor
		if i+1 < len(v.Superseded) {
			next = v.Superseded[i+1]
		}
		text := read(p)
		want := `superseded_by: "[[` + strings.TrimSuffix(filepath.Base(next), ".md") + `]]"`
		if !strings.Contains(text, want) || !strings.Contains(text, "status: superseded") {
			t.Errorf("%s lacks %s and status: superseded:\n%s", p, want, text)
		}
	}
	if strings.Contains(read(v.Successor), "superseded") {
		t.Errorf("%s, the current plan, is marked superseded", v.Successor)
	}
	if !strings.Contains(read(v.BrokenChain), "SUPERSEDED by [["+v.BrokenTarget+"]]") {
		t.Errorf("%s lacks its broken SUPERSEDED line", v.BrokenChain)
	}
	if _, ok := v.LastCommit[v.BrokenTarget+".md"]; ok {
		t.Errorf("%s exists", v.BrokenTarget)
	}
	if !strings.Contains(read(v.Stale), "STALE") {
		t.Errorf("%s is not marked STALE", v.Stale)
	}
	for _, h := range v.Hubs {
		if text := read(h); strings.Count(text, "[[") < 5 || len(strings.Fields(text)) > 60 {
			t.Errorf("%s is not a hub (%d links, %d words)", h, strings.Count(text, "[["), len(strings.Fields(text)))
		}
	}

	qs, err := eval.Load(v.QuestionsFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != len(v.Questions) || !qs[0].GoldFiles {
		t.Errorf("questions.json read as %d questions (gold files %v), want %d", len(qs), qs[0].GoldFiles, len(v.Questions))
	}
	types := map[string]int{}
	for _, q := range v.Questions {
		types[q.Type]++
		for _, g := range q.Gold {
			if _, ok := v.LastCommit[g]; !ok {
				t.Errorf("%s: gold %s is not a note", q.ID, g)
			}
		}
	}
	for _, typ := range []string{"current", "superseded", "last_week", "overview", "fact"} {
		if types[typ] == 0 {
			t.Errorf("no %s question", typ)
		}
	}
	var raw []map[string]any
	b, _ := os.ReadFile(v.QuestionsFile)
	if err := json.Unmarshal(b, &raw); err != nil || raw[0]["terms"] == nil || raw[0]["id"] != "q01" {
		t.Errorf("questions.json: %v %v", raw[0], err)
	}
}
