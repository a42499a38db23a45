package markdown

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/quire-app/quire/sidecar/internal/vaultgen"
)

// BenchmarkChunk cuts 500 generated notes into passages per iteration and
// reports throughput in MB/s of Markdown: "cl100k" as the index counts
// tokens, "codec" with every count made by the codec alone, as before
// the hand-written split (the same passages).
func BenchmarkChunk(b *testing.B) {
	dir := b.TempDir()
	paths, err := vaultgen.Write(dir, vaultgen.Options{Notes: 500, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	var notes [][]byte
	var total int64
	for _, p := range paths {
		raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			b.Fatal(err)
		}
		notes = append(notes, raw)
		total += int64(len(raw))
	}
	p := Params{MaxTokens: 256, OverlapTokens: 64, MinTokens: 64}
	for _, c := range []struct {
		name string
		c    *Chunker
	}{{"cl100k", New(p)}, {"codec", CodecChunker(p)}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(total)
			chunks := 0
			for b.Loop() {
				for _, raw := range notes {
					chunks += len(c.c.Split(raw, 0))
				}
			}
			b.ReportMetric(float64(chunks)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}
