package markdown

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

var small = Params{MaxTokens: 60, OverlapTokens: 15, MinTokens: 12}

func split(t *testing.T, p Params, raw string, bodyStart int) []Chunk {
	t.Helper()
	chunks := New(p).Split([]byte(raw), bodyStart)
	for i, c := range chunks {
		if c.Start < bodyStart || c.End > len(raw) || c.Start >= c.End {
			t.Fatalf("chunk %d: bad range [%d,%d) in %d bytes", i, c.Start, c.End, len(raw))
		}
		text := raw[c.Start:c.End]
		if strings.TrimSpace(text) != text {
			t.Errorf("chunk %d: untrimmed %q", i, text)
		}
	}
	return chunks
}

func texts(raw string, chunks []Chunk) []string {
	var out []string
	for _, c := range chunks {
		out = append(out, raw[c.Start:c.End])
	}
	return out
}

func TestBreadcrumbsAndRanges(t *testing.T) {
	raw := "---\ntitle: T\n---\nIntro line that is long enough to stand alone as a passage of its own words here.\n\n# Cheese\n\n## Ripening\n\nCheese ripens in caves where humidity and temperature are kept steady for months on end, so the rind forms.\n\n### Moulds\n\nBlue moulds grow in the veins of the paste when the cheese is pierced with needles during ripening in caves.\n\n## Brining\n\nSalt water draws moisture out and shapes the rind of many cheeses, including feta and gouda types too.\n"
	body := strings.Index(raw, "Intro")
	chunks := split(t, small, raw, body)
	var paths [][]string
	for _, c := range chunks {
		paths = append(paths, c.Headings)
	}
	// A passage is named by every heading it starts with.
	want := [][]string{nil, {"Cheese", "Ripening"}, {"Cheese", "Ripening", "Moulds"}, {"Cheese", "Brining"}}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("heading paths = %q, want %q\n%q", paths, want, texts(raw, chunks))
	}
	// The "# Cheese" heading alone is tiny and merges into its child section.
	if got := raw[chunks[1].Start:chunks[1].End]; !strings.HasPrefix(got, "# Cheese\n\n## Ripening") {
		t.Errorf("chunk 1 = %q, want it to start with the merged H1", got)
	}
	if got := chunks[0].Start; got != body {
		t.Errorf("first chunk starts at %d, want body start %d", got, body)
	}
}

func TestTinySiblingsMerge(t *testing.T) {
	raw := "# Note\n\n## A\n\nOne.\n\n## B\n\nTwo.\n\n## C\n\nThree.\n"
	chunks := split(t, small, raw, 0)
	if len(chunks) != 1 || !reflect.DeepEqual(chunks[0].Headings, []string{"Note", "A"}) {
		t.Fatalf("got %d chunks %q with paths, want one under [Note A]", len(chunks), texts(raw, chunks))
	}
	if want := []string{"B", "C"}; !reflect.DeepEqual(chunks[0].Contains, want) {
		t.Errorf("contains = %q, want %q", chunks[0].Contains, want)
	}
}

func words(n int, prefix string) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%s%d", prefix, i)
		if i%17 == 16 {
			sb.WriteByte('.')
		}
	}
	return sb.String()
}

// Every run of a few words in a long paragraph must lie whole inside
// some chunk: that is what the overlap is for.
func TestLongParagraphWindowsOverlap(t *testing.T) {
	para := words(400, "w")
	raw := "## Long\n\n" + para + "\n"
	chunks := split(t, small, raw, 0)
	if len(chunks) < 5 {
		t.Fatalf("got %d chunks, want the paragraph windowed", len(chunks))
	}
	for _, c := range chunks {
		if c.Tokens > small.MaxTokens+2 {
			t.Errorf("chunk of %d tokens exceeds max %d", c.Tokens, small.MaxTokens)
		}
		if !reflect.DeepEqual(c.Headings, []string{"Long"}) {
			t.Errorf("window lost its breadcrumb: %q", c.Headings)
		}
	}
	ws := strings.Fields(para)
	for i := 0; i+4 <= len(ws); i++ {
		phrase := strings.Join(ws[i:i+4], " ")
		found := false
		for _, txt := range texts(raw, chunks) {
			if strings.Contains(txt, phrase) {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("phrase %q is in no chunk", phrase)
		}
	}
}

func TestCodeAndTablesAreNeverCut(t *testing.T) {
	code := "```go\n" + strings.Repeat("fmt.Println(\"a line of code that is long\")\n", 30) + "```"
	table := "| a | b |\n|---|---|\n" + strings.Repeat("| cell value one | cell value two |\n", 30)
	table = strings.TrimSpace(table)
	raw := "## Code\n\n" + words(40, "x") + "\n\n" + code + "\n\n" + words(40, "y") + "\n\n" + table + "\n\n" + words(40, "z") + "\n"
	chunks := split(t, small, raw, 0)
	all := texts(raw, chunks)
	for _, whole := range []string{code, table} {
		found := false
		for _, txt := range all {
			if strings.Contains(txt, whole) {
				found = true
			}
			if !strings.Contains(txt, whole) && strings.Contains(txt, whole[:40]) {
				t.Errorf("block cut: chunk %q holds only part of it", txt)
			}
		}
		if !found {
			t.Errorf("block %q... is in no chunk whole", whole[:20])
		}
	}
}

func TestEveryWordIsCovered(t *testing.T) {
	raw := "Preamble text.\n\n# Title\n\n- item one\n- item two\n\n> quoted text\n\n" + words(300, "q") + "\n\n## Next\n\nEnd words.\n"
	chunks := split(t, small, raw, 0)
	joined := strings.Join(texts(raw, chunks), " ")
	for _, w := range strings.Fields(raw) {
		if !strings.Contains(joined, w) {
			t.Errorf("word %q is in no chunk", w)
		}
	}
}

func TestEmptyBody(t *testing.T) {
	if got := New(small).Split([]byte("---\na: b\n---\n\n  \n"), 13); len(got) != 0 {
		t.Errorf("got %d chunks for an empty body, want 0", len(got))
	}
}

func TestWikilinks(t *testing.T) {
	got := Wikilinks("See [[curd|curds]], [[Cheese#History]] and ![[pic.png]].")
	want := []Link{
		{Target: "curd", Display: "curds"},
		{Target: "Cheese", Heading: "History", Display: "Cheese"},
		{Target: "pic.png", Display: "pic.png", Embed: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestPlain(t *testing.T) {
	tests := []struct{ in, want string }{
		{"*Brevibacterium* **linens**", "Brevibacterium linens"},
		{"made from [[curd|curds]]", "made from curds (curd)"},
		{"[Wikipedia](https://en.wikipedia.org/x) and <https://a.b>", "Wikipedia and"},
		{"C# and `code`", "C# and code"},
	}
	for _, tt := range tests {
		if got := Plain(tt.in); got != tt.want {
			t.Errorf("Plain(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
