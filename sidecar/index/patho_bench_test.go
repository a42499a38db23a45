package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/state"
)

// Pathological notes through the whole index path (chunk, Bleve, catalog):
// any note up to max_file_bytes should index in under 2 s and 100 MB
// extra. markdown's BenchmarkPathological times the chunker alone.

func pathoHeadings(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s Heading number %d of the note\n", strings.Repeat("#", 1+i%6), i)
	}
	return b.String()
}

func pathoNestedList(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		b.WriteString(strings.Repeat("  ", i%200))
		fmt.Fprintf(&b, "- item %d\n", i)
	}
	return b.String()
}

func pathoMarkers(size int) string {
	line := strings.Repeat("- ", 60) + "x\n"
	return strings.Repeat(line, size/len(line))
}

// BenchmarkPathologicalNote indexes a one-note vault from nothing with the
// keyword side only. Peak RSS is measured on `quire index` under
// /usr/bin/time -v; B/op here counts every allocation, garbage included.
func BenchmarkPathologicalNote(b *testing.B) {
	cases := []struct {
		name string
		text string
	}{
		{"headings-100k", pathoHeadings(100000)},
		{"nested-list-4MB", pathoNestedList(4 << 20)},
		{"list-markers-4MB", pathoMarkers(4 << 20)},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			v := b.TempDir()
			if err := os.WriteFile(filepath.Join(v, "note.md"), []byte(tc.text), 0o644); err != nil {
				b.Fatal(err)
			}
			cfg := config.Default()
			cfg.Dense.Embedder = "none"
			b.SetBytes(int64(len(tc.text)))
			b.ReportAllocs()
			var chunks int
			for i := 0; i < b.N; i++ {
				st, err := state.Open(filepath.Join(b.TempDir(), "state"))
				if err != nil {
					b.Fatal(err)
				}
				ix, err := Open(v, st, cfg)
				if err != nil {
					b.Fatal(err)
				}
				s, err := ix.Run(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				chunks = s.Chunks
				ix.Close()
				st.Close()
			}
			b.ReportMetric(float64(chunks), "chunks")
		})
	}
}
