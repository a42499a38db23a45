package compile

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/quire-app/quire/sidecar/ingest/extract"
)

// BenchmarkCompile measures the compiler's own cost around the model: a
// fake model on loopback answers at once, so the time is chunking, token
// counting, prompts, checks and atomic writes. Each iteration writes into
// a fresh folder.
func BenchmarkCompile(b *testing.B) {
	for _, bc := range []struct {
		name   string
		doc    func(testing.TB) *extract.Doc
		model  bool
		window int
	}{
		{"article", articleDoc, true, 0},
		{"article-nomodel", articleDoc, false, 0},
		{"long-60k-tokens", func(testing.TB) *extract.Doc { return longDoc(240) }, true, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			doc := bc.doc(b)
			opts := Options{Folder: "Quire", MaxCalls: 1000}
			if bc.model {
				m, _ := newModel(b, articleModel, bc.window)
				opts.Model = m
			}
			src := source(doc, "https://crumb.example/x")
			vault := b.TempDir()
			b.ReportAllocs()
			b.ResetTimer()
			calls := 0
			for i := 0; b.Loop(); i++ {
				opts.Vault = filepath.Join(vault, strconv.Itoa(i))
				if err := os.Mkdir(opts.Vault, 0o755); err != nil {
					b.Fatal(err)
				}
				res, err := Compile(context.Background(), src, opts)
				if err != nil {
					b.Fatal(err)
				}
				calls = res.Calls
			}
			b.ReportMetric(float64(calls), "calls/op")
			b.ReportMetric(float64(len(doc.Markdown))/1024, "KiB/source")
		})
	}
}
