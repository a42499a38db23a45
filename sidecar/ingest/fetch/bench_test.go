package fetch

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkGet measures a guarded fetch of a 100 KB page from a loopback
// test server: parse, check, resolve (fake), dial, read, type check.
func BenchmarkGet(b *testing.B) {
	page := "<html>" + strings.Repeat("<p>text</p>", 100_000/11) + "</html>"
	f, _ := serve(b, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(page))
	}, public)
	c := f.client(Options{})
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := c.Get(context.Background(), "http://a.example/"); err != nil {
			b.Fatal(err)
		}
	}
}
