package vault

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestIndexable(t *testing.T) {
	r := Rules{Ignore: []string{"Templates/", "/Archive/old"}}
	tests := []struct {
		path string
		want bool
	}{
		{"note.md", true},
		{"Folder/Sub/note.MD", true},
		{"note.txt", false},
		{"drawing.excalidraw.md", false},
		{"Folder/Drawing.Excalidraw.md", false},
		{".obsidian/workspace.md", false},
		{"a/.trash/old.md", false},
		{"a/b/.git/x.md", false},
		{".quire/x.md", false},
		{"Templates/daily.md", false},
		{"TemplatesX/daily.md", true},
		{"Archive/old-notes/x.md", false},
		{"Archive/new.md", true},
		{".hidden.md", false},
	}
	for _, tt := range tests {
		if got := r.Indexable(tt.path); got != tt.want {
			t.Errorf("Indexable(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}

func writeFile(t *testing.T, root, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestScan(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a.md", []byte("# A\n"))
	writeFile(t, root, "sub/b.md", []byte("b"))
	writeFile(t, root, ".obsidian/c.md", []byte("c"))
	writeFile(t, root, "Templates/t.md", []byte("t"))
	writeFile(t, root, "big.md", []byte(strings.Repeat("x", 200)))
	writeFile(t, root, "pic.png", []byte("png"))
	writeFile(t, root, "x.excalidraw.md", []byte("x"))
	files, skips, err := Scan(root, Rules{Ignore: []string{"Templates/"}, MaxBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if want := []string{"a.md", "sub/b.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	if len(skips) != 1 || skips[0].Path != "big.md" || !strings.Contains(skips[0].Reason, "too large") {
		t.Errorf("skips = %+v, want big.md too large", skips)
	}
}

func TestScanMissingVault(t *testing.T) {
	_, _, err := Scan(filepath.Join(t.TempDir(), "nope"), Rules{})
	if !errors.Is(err, ErrNoVault) {
		t.Fatalf("err = %v, want ErrNoVault", err)
	}
}

func TestParseSkips(t *testing.T) {
	tests := []struct {
		name   string
		raw    []byte
		reason string
	}{
		{"binary", []byte("PK\x03\x04\x00\x00binary"), "binary"},
		{"latin1", []byte("caf\xe9 cr\xe8me"), "UTF-8"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.name+".md", tt.raw)
		var se *SkipError
		if !errors.As(err, &se) || !strings.Contains(se.Reason, tt.reason) || se.Path != tt.name+".md" {
			t.Errorf("%s: err = %v, want a SkipError naming the file and %q", tt.name, err, tt.reason)
		}
	}
}

func TestParseMetadata(t *testing.T) {
	tests := []struct {
		name, raw               string
		title, lang, body, warn string
		aliases, tags           []string
	}{
		{name: "yaml", raw: "---\ntitle: Rennet\naliases: [Chymosin, rennin]\ntags: [cheese, '#enzymes']\nlang: EN\n---\n# Other\nBody.\n",
			title: "Rennet", lang: "en", body: "# Other\nBody.\n", aliases: []string{"Chymosin", "rennin"}, tags: []string{"cheese", "enzymes"}},
		{name: "toml", raw: "+++\ntitle = \"Brie\"\ntags = \"soft, french\"\n+++\nText\n",
			title: "Brie", body: "Text\n", tags: []string{"soft", "french"}},
		{name: "h1 title", raw: "Intro\n```\n# not a heading\n```\n# Real Title #\n", title: "Real Title", body: "Intro\n```\n# not a heading\n```\n# Real Title #\n"},
		{name: "file name title", raw: "just text", title: "file name title", body: "just text"},
		{name: "broken yaml keeps body", raw: "---\ntitle: [unclosed\n---\n# Kept\nbody\n",
			title: "Kept", body: "# Kept\nbody\n", warn: "frontmatter ignored"},
		{name: "unclosed frontmatter is body", raw: "---\ntitle: x\nno end\n", title: "unclosed frontmatter is body", body: "---\ntitle: x\nno end\n"},
		{name: "bom", raw: "\xef\xbb\xbf---\ntitle: B\n---\nx", title: "B", body: "x"},
		{name: "single alias string", raw: "---\nalias: Solo\n---\n", title: "single alias string", aliases: []string{"Solo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Parse(tt.name+".md", []byte(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			if n.Title != tt.title || n.Lang != tt.lang || string(n.Body()) != tt.body {
				t.Errorf("got title %q lang %q body %q, want %q %q %q", n.Title, n.Lang, n.Body(), tt.title, tt.lang, tt.body)
			}
			if !reflect.DeepEqual(n.Aliases, tt.aliases) || !reflect.DeepEqual(n.Tags, tt.tags) {
				t.Errorf("aliases %v tags %v, want %v %v", n.Aliases, n.Tags, tt.aliases, tt.tags)
			}
			if (tt.warn == "") != (n.Warning == "") || !strings.Contains(n.Warning, tt.warn) {
				t.Errorf("warning = %q, want %q", n.Warning, tt.warn)
			}
		})
	}
}

func TestReadTooLarge(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "n.md", []byte(strings.Repeat("a", 50)))
	if _, err := Read(root, "n.md", 10); err == nil || !strings.Contains(err.Error(), "n.md: too large") {
		t.Errorf("err = %v, want too large naming n.md", err)
	}
	if _, err := Read(root, "gone.md", 10); err == nil || !strings.Contains(err.Error(), "gone.md: unreadable") {
		t.Errorf("err = %v, want unreadable naming gone.md", err)
	}
}

func TestObsidianExcludes(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, ".obsidian/templates.json", []byte(`{"folder": "Meta/Templates"}`))
	writeFile(t, root, ".obsidian/app.json", []byte(`{"userIgnoreFilters": ["Archive/", "/\\.draft\\.md$/"]}`))
	r := NewRules(root, []string{"Private/"}, 0)
	for p, want := range map[string]bool{
		"Meta/Templates/daily.md": false,
		"Meta/other.md":           true,
		"Archive/2020.md":         false,
		"ideas.draft.md":          false,
		"ideas.md":                true,
		"Private/diary.md":        false,
	} {
		if got := r.Indexable(p); got != want {
			t.Errorf("Indexable(%q) = %v, want %v", p, got, want)
		}
	}
}
