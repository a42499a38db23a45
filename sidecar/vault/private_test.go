package vault

import (
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// TestPrivateEntries: every way of writing a folder that people type
// protects it; single notes are held as ignore: holds them; what cannot
// be understood is refused naming the entry.
func TestPrivateEntries(t *testing.T) {
	nfd := norm.NFD.String("Tagebücher/2026.md")
	for _, tc := range []struct {
		entry string
		holds []string
		not   []string
	}{
		{"Journal/", []string{"Journal/a.md", "journal/b/c.md"}, []string{"Journalism/a.md", "x/Journal/a.md"}},
		{"Journal", []string{"Journal/a.md", "Journal.md"}, []string{"Journalism/a.md"}},
		{"./Journal/", []string{"Journal/a.md"}, nil},
		{"Journal/*", []string{"Journal/a.md", "Journal/b/c.md"}, nil},
		{"Journal/**", []string{"Journal/a.md"}, nil},
		{" Journal", []string{"Journal/a.md"}, nil},
		{"/Journal\\", []string{"Journal/a.md"}, nil},
		{"Journal/2026-11-30.md", []string{"Journal/2026-11-30.md", "journal/2026-11-30.MD"}, []string{"Journal/2026-11-29.md"}},
		{"Health/scan.pdf", []string{"Health/scan.pdf", "health/SCAN.PDF"}, []string{"Health/scan.pdf.md", "Health/scan.pdf/x.md"}},
		{"Health/", []string{"Health/lab results.pdf"}, nil},
		{"Tagebücher/", []string{nfd, "TAGEBÜCHER/x.md"}, nil},
		{norm.NFD.String("Tagebücher/"), []string{"Tagebücher/x.md"}, nil},
	} {
		p, err := ParsePrivate([]string{tc.entry})
		if err != nil {
			t.Errorf("%q: %v", tc.entry, err)
			continue
		}
		for _, rel := range tc.holds {
			if !p.Holds(rel) {
				t.Errorf("%q does not hold %q", tc.entry, rel)
			}
		}
		for _, rel := range tc.not {
			if p.Holds(rel) {
				t.Errorf("%q holds %q", tc.entry, rel)
			}
		}
	}
	for _, bad := range []string{"", " ", "*", "**", "./", "../Journal/", "Journal/../../x", "Jour*nal/", "*.md", "C:/Journal", "a//b"} {
		_, err := ParsePrivate([]string{"Journal/", bad})
		if err == nil || !strings.Contains(err.Error(), "\""+strings.ReplaceAll(bad, "\\", "\\\\")+"\"") {
			t.Errorf("%q: err %v, want an error naming it", bad, err)
		}
	}
}

// TestPrivateMarkAndUnmatched: a marked note is private wherever it lies;
// an entry that holds no note of the vault is reported.
func TestPrivateMarkAndUnmatched(t *testing.T) {
	p, err := ParsePrivate([]string{"Journal/", "Jurnal/", "Health/scan.md"})
	if err != nil {
		t.Fatal(err)
	}
	p = p.WithMarked([]string{"Quire/Answers/a.md"})
	if !p.Holds("Quire/Answers/a.md") || p.Holds("Quire/Answers/b.md") {
		t.Error("the mark holds the wrong notes")
	}
	got := p.Unmatched([]string{"Journal/a.md", "Health/scan.md", "Kitchen/b.md"})
	if len(got) != 1 || got[0] != "Jurnal/" {
		t.Errorf("unmatched %q, want [Jurnal/]", got)
	}
	n, err := Parse("a.md", []byte("---\nprivate: true\n---\nbody\n"))
	if err != nil || !n.Private {
		t.Errorf("the frontmatter mark is not read: %+v %v", n, err)
	}
}
