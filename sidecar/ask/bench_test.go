package ask

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/search"
)

func BenchmarkPack(b *testing.B) {
	var ranked []search.Passage
	for i := range 20 {
		ranked = append(ranked, search.Passage{ID: fmt.Sprintf("n%d.md#%d", i%6, i), Path: fmt.Sprintf("n%d.md", i%6), Start: i * 2000, End: i*2000 + 1500,
			Title: "Note", Headings: []string{"Section"}, Text: strings.Repeat(fmt.Sprintf("Sentence %d about fermentation and cheese making. ", i), 25)})
	}
	b.ReportAllocs()
	for b.Loop() {
		Pack(ranked, 2800, nil)
	}
}

func BenchmarkCheck(b *testing.B) {
	var ps []Passage
	for i := range 12 {
		ps = append(ps, Passage{N: i + 1, Passage: search.Passage{ID: fmt.Sprint(i), Path: "n.md",
			Text: strings.Repeat(fmt.Sprintf("Words of passage %d here. ", i), 40)}})
	}
	r, _ := parseReply(jsonReply(`Passage one says "words of passage 1 here" [1]; others agree [2][3, 99] and [7]. `+strings.Repeat("More claims [4]. ", 10),
		[]int{1, 2, 3, 99}, false, map[string]any{"id": 2, "text": "Words of passage 2 here."}))
	b.ReportAllocs()
	for b.Loop() {
		ans := Answer{Passages: ps}
		check(&ans, r)
	}
}

// goldQuestion is a record of shared/bench's gold format.
type goldQuestion struct {
	Query         string   `json:"query"`
	ExpectedNotes []string `json:"expected_notes"`
	AnswerSpans   []struct {
		Text string `json:"text"`
	} `json:"answer_spans"`
}

func benchCorpus(b *testing.B) (string, []goldQuestion) {
	dir := os.Getenv("QUIRE_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared")
	}
	bench := filepath.Join(dir, "bench", "ariostea-wiki")
	data, err := os.ReadFile(filepath.Join(bench, "dev", "gold.dev.json"))
	if err != nil {
		b.Skipf("no benchmark corpus (set QUIRE_SHARED): %v", err)
	}
	var gold []goldQuestion
	if err := json.Unmarshal(data, &gold); err != nil {
		b.Fatal(err)
	}
	return filepath.Join(bench, "corpus"), gold
}

// BenchmarkAskExtractive asks every dev-set question of the benchmark
// corpus with no model (keyword retrieval) and reports the median and
// 90th-percentile time of one ask, how often an extracted answer cites
// the gold note, and how often the gold answer span is in it.
func BenchmarkAskExtractive(b *testing.B) {
	corpus, gold := benchCorpus(b)
	f := openIndex(b, corpus, b.TempDir())
	a := &Asker{Search: f.searcher, Channel: search.BM25}
	ctx := context.Background()
	var took []time.Duration
	cited, spans := 0, 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := gold[i%len(gold)]
		start := time.Now()
		ans, err := a.Ask(ctx, Query{Question: q.Query}, nil)
		if err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
		if i < len(gold) {
			for _, c := range ans.Citations {
				if c.Path == q.ExpectedNotes[0] {
					cited++
					break
				}
			}
			if strings.Contains(normalize(ans.Text), normalize(q.AnswerSpans[0].Text)) {
				spans++
			}
		}
	}
	slices.Sort(took)
	n := min(len(took), len(gold))
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(took[len(took)*9/10].Microseconds())/1000, "p90-ms")
	b.ReportMetric(float64(cited)/float64(n), "gold-note-cited")
	b.ReportMetric(float64(spans)/float64(n), "gold-span-shown")
}
