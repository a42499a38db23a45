package ingest

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkQueueCycle measures one item's whole life (Add, Claim,
// SetTextHash, Complete): four fsynced bbolt commits.
func BenchmarkQueueCycle(b *testing.B) {
	q, err := OpenQueue(filepath.Join(b.TempDir(), "queue"))
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	for i := 0; b.Loop(); i++ {
		it, err := q.Add(fmt.Sprintf("https://example.org/post/%d?utm_source=x", i))
		if err != nil {
			b.Fatal(err)
		}
		q.Claim()
		q.SetTextHash(it.ID, fmt.Sprint(i))
		if err := q.Complete(it.ID, "note.md"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNormalizeURL(b *testing.B) {
	for b.Loop() {
		NormalizeURL("HTTPS://Example.org:443/a/./b/../post/?utm_source=x&b=2&a=1&fbclid=z#frag")
	}
}
