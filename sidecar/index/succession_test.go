package index

import (
	"strings"
	"testing"
)

func TestSuccessions(t *testing.T) {
	s := Successions(map[string]Entry{
		"Projects/Plan v1.md": {Title: "Plan v1", Superseded: true, SupersededBy: "Plan v2"},
		"Projects/Plan v2.md": {Title: "Plan v2", Superseded: true, SupersededBy: "Projects/plan v3"},
		"Projects/Plan v3.md": {Title: "Plan v3"},
		"Old/Plan v3.md":      {Title: "An older copy"},
		"News.md":             {Title: "News", Superseded: true, SupersededBy: "Missing Note"},
		"A.md":                {Title: "A", Superseded: true, SupersededBy: "B"},
		"B.md":                {Title: "B", Superseded: true, SupersededBy: "A"},
		"Draft.md":            {Title: "Draft", Superseded: true},
		"By title.md":         {Title: "By title", Superseded: true, SupersededBy: "Plan v3 itself"},
		"x/Other.md":          {Title: "Plan v3 itself"},
	})
	for from, want := range map[string]string{"Projects/Plan v1.md": "Projects/Plan v3.md", "Projects/Plan v2.md": "Projects/Plan v3.md", "By title.md": "x/Other.md"} {
		if got := s.Next[from]; got != want {
			t.Errorf("next of %s = %q, want %q", from, got, want)
		}
	}
	for _, p := range []string{"News.md", "A.md", "B.md", "Draft.md"} {
		if got, ok := s.Next[p]; ok {
			t.Errorf("next of %s = %q, want none", p, got)
		}
	}
	var broken []string
	for _, b := range s.Broken {
		broken = append(broken, b.Path+": "+b.Reason)
	}
	got := strings.Join(broken, "\n")
	for _, want := range []string{"News.md: superseded by [[Missing Note]], which is no note", "A.md: superseded by [[B]], which leads back to it", "B.md: superseded by [[A]], which leads back"} {
		if !strings.Contains(got, want) {
			t.Errorf("broken chains:\n%s\nwant %q", got, want)
		}
	}
	if len(s.Broken) != 3 {
		t.Errorf("%d broken, want 3 (a note without a link is no broken chain)", len(s.Broken))
	}
}
