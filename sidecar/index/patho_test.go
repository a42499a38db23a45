package index

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/markdown"
)

// pathoWords is prose of about size bytes, with word ends (tags sit in
// text as they would) and a line break every few sentences.
func pathoWords(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "Sentence %d of a long exported log, with #tag%d inside. ", i, i%7)
		if i%5 == 4 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// TestPathologicalNotesIndex runs every pathological note the benchmarks
// time through the whole index path, beside an ordinary note: none
// crashes the pass, each is searchable by a word of its own or skipped
// with a warning naming it, and the ordinary note stays searchable. A
// note over 512 KiB with a heading once crashed the indexer (markdown.Tags
// sliced blocks that had no end).
func TestPathologicalNotesIndex(t *testing.T) {
	notes := map[string]string{
		"plain.md":         "# Plain\n\nAn ordinary note about quinces.\n",
		"two-headings.md":  "# Export zebrafinch\n\n" + pathoWords(300<<10) + "\n## Second half\n\n" + pathoWords(317<<10),
		"five-mb.md":       "# Log okapi\n\n" + pathoWords(5_000_000),
		"headings-100k.md": "Intro narwhal.\n\n" + pathoHeadings(100000),
		"nested-list.md":   "# Deep axolotl\n\n" + pathoNestedList(4<<20),
		"markers.md":       "# Markers pangolin\n\n" + pathoMarkers(4<<20),
		"over-cap.md":      pathoWords(6 << 20),
	}
	f := newFixture(t, notes)
	st := f.run()
	skipped := map[string]string{}
	for _, s := range st.Skipped {
		skipped[s.Path] = s.Reason
	}
	if _, ok := skipped["over-cap.md"]; !ok {
		t.Errorf("over-cap.md (6 MiB) not skipped: %+v", st.Skipped)
	}
	for p, word := range map[string]string{"plain.md": "quinces", "two-headings.md": "zebrafinch", "five-mb.md": "okapi",
		"headings-100k.md": "narwhal", "nested-list.md": "axolotl", "markers.md": "pangolin"} {
		if r, ok := skipped[p]; ok {
			t.Errorf("%s skipped: %s", p, r)
			continue
		}
		if got := paths(f.search(word)); !strings.Contains(got, p) {
			t.Errorf("%q finds %q, want %s", word, got, p)
		}
	}
	entries, err := f.ix.Entries()
	if err != nil {
		t.Fatal(err)
	}
	if e := entries["two-headings.md"]; e.Chunks < 2 || e.Chunks > markdown.MaxPassages {
		t.Errorf("two-headings.md: %d passages", e.Chunks)
	}
	if w := entries["plain.md"].Warning; w != "" {
		t.Errorf("plain.md warned: %s", w)
	}
}

// panicky is a tokenizer that panics on one note's text, as a bug only
// that note's text finds would.
type panicky struct{ markdown.Tokenizer }

func (p panicky) Offsets(s string) []int {
	if strings.Contains(s, "tripwire") {
		panic("slice bounds out of range [7:0]")
	}
	return p.Tokenizer.Offsets(s)
}

// TestPanicInOneNoteIsASkip: a panic while reading one note leaves that
// note out with a reason naming it; the pass and the rest of the vault go
// on, and the next pass tries the note again.
func TestPanicInOneNoteIsASkip(t *testing.T) {
	f := newFixture(t, map[string]string{
		"good.md": "# Good\n\nQuinces ripen in October.\n",
		"bad.md":  "# Bad\n\nThis note trips the tripwire.\n",
	})
	c := markdown.New(markdown.Params(f.ix.cfg.Chunk))
	c.Tok = panicky{c.Tok}
	f.ix.chunker = func() *markdown.Chunker { return c }
	st := f.run()
	if len(st.Skipped) != 1 || st.Skipped[0].Path != "bad.md" || !strings.Contains(st.Skipped[0].Reason, "slice bounds") {
		t.Fatalf("skipped %+v, want bad.md with the panic's words", st.Skipped)
	}
	if got := paths(f.search("quinces")); got != "good.md" {
		t.Errorf("quinces finds %q, want good.md", got)
	}
	if st := f.run(); len(st.Skipped) != 1 || st.Skipped[0].Path != "bad.md" {
		t.Errorf("second pass skipped %+v, want bad.md tried and skipped again", st.Skipped)
	}
}
