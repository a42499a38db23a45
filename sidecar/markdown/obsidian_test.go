package markdown

import (
	"reflect"
	"strings"
	"testing"
)

// The tests below are one per chunking defect found on a real Obsidian
// vault (issue 18). The notes are synthetic.

// chunkHolding returns the chunks that contain part of whole: there must
// be exactly one, holding all of it.
func assertWhole(t *testing.T, raw string, chunks []Chunk, whole string) {
	t.Helper()
	if !strings.Contains(raw, whole) {
		t.Fatalf("bad test: %q not in note", whole)
	}
	at := strings.Index(raw, whole)
	for _, c := range chunks {
		overlaps := c.Start < at+len(whole) && c.End > at
		if overlaps && (c.Start > at || c.End < at+len(whole)) {
			t.Errorf("block cut: chunk [%d,%d) %q holds part of %q", c.Start, c.End, raw[c.Start:c.End], whole)
		}
	}
}

func TestCalloutTitleStaysWithBody(t *testing.T) {
	callout := "> [!info] Ignored folders\n> Folders listed here are left out of search, the graph and unlinked mentions, but you can still open them.\n> They keep syncing as before."
	raw := "## Settings\n\n" + words(45, "p") + "\n\n" + callout + "\n\n" + words(30, "q") + "\n"
	chunks := split(t, small, raw, 0)
	assertWhole(t, raw, chunks, callout)
}

func TestFenceInsideCalloutIsNotCut(t *testing.T) {
	callout := "> [!example] Colour the title\n> ```css\n" + strings.Repeat("> .title { color: #ff0000; margin: 0 auto; }\n", 8) + "> ```\n> Save it as a snippet."
	raw := "## Snippets\n\n" + words(40, "s") + "\n\n" + callout + "\n\n" + words(40, "t") + "\n"
	chunks := split(t, small, raw, 0)
	assertWhole(t, raw, chunks, callout)
}

func TestCodeInListIsNotCut(t *testing.T) {
	list := "1. Open the file.\n2. Add this:\n   ```yaml\n" + strings.Repeat("   key: a value that matters here\n", 10) + "   ```\n3. Save."
	raw := "## Steps\n\n" + words(40, "a") + "\n\n" + list + "\n\n" + words(40, "b") + "\n"
	chunks := split(t, small, raw, 0)
	assertWhole(t, raw, chunks, list)
}

func TestHeadingNeverStandsAlone(t *testing.T) {
	table := "| syntax | meaning |\n|---|---|\n" + strings.TrimSpace(strings.Repeat("| a cell of syntax | what it means here |\n", 20))
	tests := map[string]string{
		"heading then big table":       "## Extensions\n\n" + words(30, "i") + "\n\n### Supported extensions\n\n" + table + "\n",
		"empty heading then a sibling": "# Import\n\n## From the old app\n\n## From your account\n\n" + words(120, "w") + "\n",
		"heading at a window's end":    "## Long\n\n" + words(50, "x") + "\n\n### Next part\n\n" + words(100, "y") + "\n",
	}
	for name, raw := range tests {
		t.Run(name, func(t *testing.T) {
			for _, c := range split(t, small, raw, 0) {
				text := raw[c.Start:c.End]
				rest := ""
				for _, line := range strings.Split(text, "\n") {
					if !strings.HasPrefix(line, "#") {
						rest += line
					}
				}
				if strings.TrimSpace(rest) == "" {
					t.Errorf("passage of headings only: %q", text)
				}
			}
		})
	}
}

func TestBreadcrumbNamesTheHeadingsAPassageStartsWith(t *testing.T) {
	// Two tiny sibling sections merge into one passage: it starts with
	// the first H3, so the H3 belongs in its breadcrumb.
	raw := "# Syntax\n\n## Operators\n\n" + words(50, "o") + "\n\n### Arithmetic operators\n\nAdd and subtract.\n\n### Comparison operators\n\nEqual or not.\n\n## Functions\n\n" + words(80, "f") + "\n"
	chunks := split(t, small, raw, 0)
	want := map[string][]string{
		"### Arithmetic operators": {"Syntax", "Operators", "Arithmetic operators"},
		"## Functions":             {"Syntax", "Functions"},
		"f2":                       {"Syntax", "Functions"}, // a window inside the section ("f26 ...")
	}
	for _, c := range chunks {
		text := raw[c.Start:c.End]
		for prefix, w := range want {
			if strings.HasPrefix(text, prefix) {
				delete(want, prefix)
				if !reflect.DeepEqual(c.Headings, w) {
					t.Errorf("passage %q: headings %q, want %q", prefix, c.Headings, w)
				}
			}
		}
	}
	for prefix := range want {
		t.Errorf("no passage starts with %q: %q", prefix, texts(raw, chunks))
	}
}

func TestMarkupOutOfText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Open the ![[lucide-terminal.svg#icon]] **Command palette**.", "Open the  Command palette."},
		{"See ![[Other note#Part]] here", "See  here"},
		{"Keep %%a private remark%% this", "Keep  this"},
		{"Before %%a remark\nover lines%% after", "Before  after"},
		{"A <span class='flair'>New</span> thing", "A New thing"},
		{"<iframe src=\"https://x.example/embed\"\n  width=\"640\"></iframe>Video", "Video"},
		{"x <!-- hidden --> y", "x  y"},
		{"> [!tip] Good to know\n> body", ">  Good to know\n> body"},
	}
	for _, tt := range tests {
		if got := Plain(tt.in); got != tt.want {
			t.Errorf("Plain(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTagsOutsideCodeAtAnyDepth(t *testing.T) {
	body := "Intro #top and `#inline-code`.\n\n> [!example] Colours\n> ```css\n> .a { color: #ff0000; }\n> #notatag\n> ```\n> a callout #incallout\n\n- item\n  - nested #deep/er\n    ```\n    #incode\n    ```\n\n```\n#fenced\n```\n\n# Heading #inheading\n"
	got := Tags([]byte(body))
	want := []string{"top", "incallout", "deep/er", "inheading"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Tags = %q, want %q", got, want)
	}
}
