package compile

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/ingest/extract"
)

const summarySections = `## From [[Quire/Sources/Winter fields|Winter fields]]

A cover crop such as rye protects the soil over winter; Marta Kowalska sows it in 2019 on 12 fields.

## From [[Quire/Sources/Spring beds|Spring beds]]

The cover crop is cut in spring and left as mulch. "Roots hold the soil together" says the guide.
`

// TestCheckSummary: each check rejects the summary made to fail it alone,
// and lets through one that only uses what the sections hold; with any
// check removed, its case goes red.
func TestCheckSummary(t *testing.T) {
	for _, tc := range []struct {
		name, summary, fault string
	}{
		{"good", "A cover crop such as rye protects the soil over winter, and in spring it is cut and left as mulch.", ""},
		{"quote, number and name the sections hold", `Marta Kowalska sows rye in 2019 on 12 fields, since "roots hold the soil together" and the crop becomes mulch.`, ""},
		{"too short", "Rye protects soil.", "shorter than"},
		{"too long", strings.Repeat("A cover crop protects the soil over winter. ", 12), "longer than"},
		{"language", "Un cultivo de cobertura como el centeno protege el suelo durante el invierno y en primavera se corta.", "language"},
		{"wikilink", "A cover crop such as rye protects the soil over winter, see [[Mulch]] for what follows in spring.", "link"},
		{"url", "A cover crop such as rye protects the soil over winter, as https://crops.example/rye explains in spring.", "link"},
		{"quote", `A cover crop such as rye protects the soil over winter, since "rye is the king of cover crops" in spring.`, "quotes"},
		{"number", "A cover crop such as rye protects the soil over winter, and 40 days later it is cut and left as mulch.", "number"},
		{"name", "A cover crop such as rye protects the soil over winter, as Rodale showed, and in spring it is cut.", "names"},
	} {
		got := checkSummary(tc.summary, summarySections)
		if tc.fault == "" && got != "" || tc.fault != "" && !strings.Contains(got, tc.fault) {
			t.Errorf("%s: checkSummary(%q) = %q, want %q", tc.name, tc.summary, got, tc.fault)
		}
	}
}

// consolidating compiles three sources that name the concepts of cropModel
// with a model whose summaries are answers[i] for its i-th summary call
// (the last one repeated), and returns the vault and the summary calls.
func consolidating(t *testing.T, cap int, answers ...string) (string, *int) {
	t.Helper()
	vault := t.TempDir()
	calls := 0
	for i, title := range []string{"Winter fields", "Spring beds", "Autumn rows"} {
		f := cropModel(title, "From "+title+": rye as a", "cover crop", "green manure")
		f.summarise = func(string) string {
			calls++
			return answers[min(calls, len(answers))-1]
		}
		model, _ := newModel(t, f, 0)
		doc := cropDoc(title, "")
		src := Source{Doc: doc, Origin: "/clips/" + title + ".txt", Captured: time.Date(2026, 3, 1+i, 9, 0, 0, 0, time.UTC), Hash: extract.TextHash(doc)}
		if _, err := Compile(context.Background(), src, Options{Vault: vault, Folder: "Quire", Model: model, Consolidate: cap}); err != nil {
			t.Fatal(err)
		}
	}
	return vault, &calls
}

const goodSummary = "Three sources describe rye as a cover crop that protects the soil over winter and feeds it."

// TestConsolidate: off by default; on, a concept page with three sources
// gets the summary on top of its sections, within the cap per run; a
// summary that fails a check is asked for once more, and failing twice
// goes to review with the page left as it was.
func TestConsolidate(t *testing.T) {
	vault, calls := consolidating(t, 0, goodSummary)
	if *calls != 0 || strings.Contains(readFile(t, vault, "Quire/Concepts/cover crop.md"), "[!abstract]") {
		t.Fatalf("consolidated while off: %d calls", *calls)
	}
	plain := readFile(t, vault, "Quire/Concepts/cover crop.md")

	vault, calls = consolidating(t, 1, goodSummary)
	page := readFile(t, vault, "Quire/Concepts/cover crop.md")
	if *calls != 1 || !strings.Contains(page, "> [!abstract] Summary\n> "+goodSummary+"\n\n## From [[Quire/Sources/Winter fields|") {
		t.Errorf("summarised page (%d calls):\n%s", *calls, page)
	}
	if _, ok := ours([]byte(page)); !ok || !strings.Contains(page, "quire_summary:") {
		t.Errorf("summarised page not sealed or not marked:\n%s", page)
	}
	if strings.Contains(readFile(t, vault, "Quire/Concepts/green manure.md"), "[!abstract]") {
		t.Error("two pages summarised with a cap of one per run")
	}

	vault, calls = consolidating(t, 1, "See https://rye.example for more on rye as a cover crop over winter.", goodSummary)
	if page := readFile(t, vault, "Quire/Concepts/cover crop.md"); *calls != 2 || !strings.Contains(page, goodSummary) {
		t.Errorf("after one retry (%d calls):\n%s", *calls, page)
	}

	vault, calls = consolidating(t, 1, "Too short.")
	if page := readFile(t, vault, "Quire/Concepts/cover crop.md"); *calls != 2 || page != plain {
		t.Errorf("a page whose summary failed twice changed (%d calls):\n%s", *calls, page)
	}
	review := readFile(t, vault, "Quire/Review/cover crop — summary.md")
	if !strings.Contains(review, "shorter than") || !strings.Contains(review, "Too short.") {
		t.Errorf("review item:\n%s", review)
	}
}
