package bench

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

const clip = `Cover crops in winter

A cover crop such as winter rye protects bare soil from erosion between two harvests. Farmers call a crop dug back into the soil green manure. "The roots hold the soil together," the extension guide says, and the rye is cut in spring before it sets seed.
`

// TestBench: two fake models over one source. "careful" answers valid
// JSON with the source's own quote and term, in English; "sloppy" cuts
// its first reply to each task short (not JSON), invents a quote and a term, and
// summarises in Spanish. The table tells them apart on every column.
func TestBench(t *testing.T) {
	srv := llmtest.New(t)
	seen := map[string]bool{}
	srv.SetResponder(func(r llmtest.Request) llmtest.Reply {
		sys := r.Messages[0].Content
		sloppy := r.Model == "sloppy"
		var v any
		switch {
		case strings.HasPrefix(sys, "Task: take notes"), strings.HasPrefix(sys, "Task: merge"):
			quote, term := "The roots hold the soil together", "green manure"
			if sloppy {
				quote, term = "Rye is the king of all crops", "nitrogen fixation"
			}
			v = map[string]any{"points": []string{"Rye protects soil."}, "quotes": []string{quote},
				"terms": []map[string]string{{"term": term, "definition": "A crop dug back into the soil."}}}
		case strings.HasPrefix(sys, "Task: plan"):
			summary := "Winter rye sown as a cover crop protects bare soil from erosion between two harvests and is cut in spring."
			if sloppy {
				summary = "El centeno de invierno protege el suelo desnudo de la erosión entre dos cosechas y se corta en primavera."
			}
			v = map[string]any{"title": "Cover crops in winter", "oneLiner": "Cover crops protect soil.", "summary": summary}
		}
		b, _ := json.Marshal(v)
		text := string(b)
		key := r.Model + sys[:20]
		if sloppy && !seen[key] {
			seen[key] = true
			text = "Sure! Here are my notes: " + text[:len(text)/2]
		}
		return llmtest.Reply{Text: text}
	})
	var models []Model
	for _, name := range []string{"careful", "sloppy"} {
		c, err := llm.New(llm.Config{Provider: llm.Ollama, Endpoint: srv.URL, Model: name, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, c)
	}
	var told []Row
	rows, err := Run(context.Background(), models, []Source{{Name: "cover-crops.txt", Data: []byte(clip), File: "cover-crops.txt"}}, 0, func(r Row) { told = append(told, r) })
	if err != nil || len(rows) != 2 || len(told) != 2 {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	careful, sloppy := rows[0], rows[1]
	if careful.Model != "careful" || careful.Calls != 2 || careful.FirstTry != 2 || careful.Quotes != 1 || careful.QuotesKept != 1 ||
		careful.Terms != 1 || careful.TermsKept != 1 || careful.SourceLang != "en" || !careful.SameLang() || !careful.Summarised ||
		careful.InputTokens == 0 || careful.OutputTokens == 0 || careful.Seconds <= 0 {
		t.Errorf("careful: %+v", careful)
	}
	if sloppy.Calls != 2 || sloppy.FirstTry != 0 || sloppy.Quotes != 1 || sloppy.QuotesKept != 0 || sloppy.Terms != 1 || sloppy.TermsKept != 0 ||
		sloppy.SummaryLang != "es" || sloppy.SameLang() || !sloppy.Summarised {
		t.Errorf("sloppy: %+v", sloppy)
	}
}
