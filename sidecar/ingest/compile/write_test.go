package compile

import (
	"strings"
	"testing"
)

func TestSealAndOurs(t *testing.T) {
	doc, err := seal(pageFront{Quire: Marker, Kind: "concept", Title: "X", Sources: []string{"abc"}}, "\n# X\n\nquire_hash: \"\"\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ours(doc); !ok {
		t.Fatalf("a sealed page is not ours:\n%s", doc)
	}
	edits := []func(string) string{
		func(s string) string { return s + "more\n" },
		func(s string) string { return strings.Replace(s, "# X", "# Y", 1) },
		func(s string) string { return strings.Replace(s, "title: X", "title: Z", 1) },
		func(s string) string { return strings.Replace(s, "quire: generated", "quire: mine", 1) },
	}
	for i, edit := range edits {
		if _, ok := ours([]byte(edit(string(doc)))); ok {
			t.Errorf("edit %d went unnoticed", i)
		}
	}
	if _, ok := ours([]byte("# my note\n")); ok {
		t.Error("a note without frontmatter is ours")
	}
}

func TestNoteName(t *testing.T) {
	for in, want := range map[string]string{
		"Why Sourdough Rises":   "Why Sourdough Rises",
		"Go 1.22 release notes": "Go 1.22 release notes",
		"a/b: c?":               "a-b- c",
		"[[x]] #y ^z |w":        "x y z w",
		"../../etc/passwd":      "etc-passwd",
		"CON":                   "CON_",
		"":                      "Untitled",
	} {
		if got := noteName(in); got != want {
			t.Errorf("noteName(%q): got %q, want %q", in, got, want)
		}
	}
}

func TestDemote(t *testing.T) {
	in := "# One\n\n## Two\n\n##### Five\n\n#tag\n\n```\n# code\n```\n###### Six"
	want := "### One\n\n#### Two\n\n###### Five\n\n#tag\n\n```\n# code\n```\n###### Six"
	if got := demote(in); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
