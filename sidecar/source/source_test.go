package source

import "testing"

func TestMatch(t *testing.T) {
	s := Source{ID: "work", Kind: KindFolder, Paths: []string{"work/**"}, Exclude: []string{"work/drafts/**", "*.tmp.md"}}
	for _, c := range []struct {
		rel  string
		want bool
	}{
		{"work/a.md", true},
		{"work/deep/b.MD", false}, // include is *.md, case-sensitive as globs are
		{"work/deep/b.md", true},
		{"work/drafts/c.md", false},
		{"work/x.tmp.md", false},
		{"other/a.md", false},
		{"work/.hidden/a.md", false},
		{"work/a.txt", false},
	} {
		if got := s.Match(c.rel); got != c.want {
			t.Errorf("Match(%q) = %v, want %v", c.rel, got, c.want)
		}
	}
	for _, c := range []struct {
		dir  string
		want bool
	}{
		{"work", false}, {"work/deep", false}, {"work/drafts", true}, {"other", true}, {"work/.git", true},
	} {
		if got := s.Prune(c.dir); got != c.want {
			t.Errorf("Prune(%q) = %v, want %v", c.dir, got, c.want)
		}
	}
	all := Source{ID: "ops", Kind: KindGit, Include: []string{"*.md", "docs/*.txt"}}
	if !all.Match("a/b/c.md") || !all.Match("docs/x.txt") || all.Match("x.txt") {
		t.Error("git source with include: wrong match")
	}
}

func TestKey(t *testing.T) {
	for _, c := range []struct{ id, rel, key string }{
		{Vault, "Journal/a.md", "Journal/a.md"},
		{"ops", "runbooks/a.md", "ops:runbooks/a.md"},
		{"ops", "runbooks/", "ops:runbooks/"},
	} {
		if got := Key(c.id, c.rel); got != c.key {
			t.Errorf("Key(%q, %q) = %q, want %q", c.id, c.rel, got, c.key)
		}
		if id, rel := Split(c.key); id != c.id || rel != c.rel {
			t.Errorf("Split(%q) = %q, %q", c.key, id, rel)
		}
	}
	// Not keys of a source: a colon after a folder, or before no valid id.
	for _, k := range []string{"a/b:c.md", "C:notes.md", "Big Id:x.md", "-x:y.md"} {
		if id, rel := Split(k); id != Vault || rel != k {
			t.Errorf("Split(%q) = %q, %q; want the vault's", k, id, rel)
		}
	}
	if !Foreign("ops:x.md") || Foreign("ops/x.md") {
		t.Error("Foreign")
	}
}

func TestCheckID(t *testing.T) {
	for id, ok := range map[string]bool{"ops": true, "travel-notes_2": true, "vault": false, "o": false, "Ops": false, "-ops": false, "a:b": false, "": false} {
		if err := CheckID(id); (err == nil) != ok {
			t.Errorf("CheckID(%q) = %v", id, err)
		}
	}
	for g, ok := range map[string]bool{"*.md": true, "drafts/**": true, "/abs/**": false, "../x": false, "[": false, " ": false} {
		if err := CheckGlob(g); (err == nil) != ok {
			t.Errorf("CheckGlob(%q) = %v", g, err)
		}
	}
}

func TestPathsAnchored(t *testing.T) {
	s := Source{Paths: []string{"work/**"}}
	if s.Match("x/work/a.md") || !s.Match("work/a.md") {
		t.Error("paths must be anchored at the root")
	}
}
