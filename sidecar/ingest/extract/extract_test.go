package extract

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestAny(t *testing.T) {
	pdf := makePDF(t, false)
	html := readFixture(t, "table-code.html")
	tests := []struct {
		name, file, contentType, url string
		data                         []byte
		wantTitle                    string
		wantErr                      error
	}{
		{"pdf by type", "", "application/pdf", "https://x.example/get?id=1", pdf, "Soil Moisture and Crop Yield", nil},
		{"pdf by extension", "Inbox/report.pdf", "", "", pdf, "Soil Moisture and Crop Yield", nil},
		{"pdf sniffed", "download", "application/octet-stream", "", pdf, "Soil Moisture and Crop Yield", nil},
		{"html by type", "", "text/html; charset=utf-8", "https://go.example/slices", html, "Go slices in practice", nil},
		{"html by extension", "page.htm", "", "", html, "Go slices in practice", nil},
		{"html sniffed", "", "", "https://go.example/slices", html, "Go slices in practice", nil},
		{"markdown by extension", "clip.md", "text/plain", "", []byte("# Clip\n\ntext"), "Clip", nil},
		{"markdown by type", "", "text/markdown", "https://x.example/a", []byte("# Clip\n\ntext"), "Clip", nil},
		{"text", "notes.txt", "", "", []byte("Title line\n\nbody"), "Title line", nil},
		{"image refused", "photo.png", "image/png", "", []byte("\x89PNG\r\n\x1a\n"), "", ErrUnsupported},
		{"binary refused", "blob", "", "", []byte{0, 1, 2, 3, 0xff, 0xfe}, "", ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Any(context.Background(), tt.data, tt.file, tt.contentType, tt.url)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != tt.wantTitle {
				t.Errorf("title: got %q, want %q", doc.Title, tt.wantTitle)
			}
		})
	}
}

func TestTextHash(t *testing.T) {
	h := func(s string) string { return TextHash(&Doc{Text: s}) }
	same := [][2]string{
		{"Hello, world!", "hello world"},
		{"Café au lait", "Cafe\u0301 au lait"}, // NFC and NFD
		{"two\n\nparagraphs", "two paragraphs"},
		{"  padded  ", "padded"},
	}
	for _, p := range same {
		if h(p[0]) != h(p[1]) {
			t.Errorf("TextHash(%q) != TextHash(%q)", p[0], p[1])
		}
	}
	differ := [][2]string{
		{"hello world", "hello word"},
		{"café", "cafe"},
		{"ab", "a b"},
	}
	for _, p := range differ {
		if h(p[0]) == h(p[1]) {
			t.Errorf("TextHash(%q) == TextHash(%q)", p[0], p[1])
		}
	}
	if got := h("x"); len(got) != 64 {
		t.Errorf("hash %q is not 64 hex digits", got)
	}
}

// The same article fetched as HTML and clipped as Markdown hashes the same
// once both are reduced to text.
func TestTextHashAcrossFormats(t *testing.T) {
	a, err := Markdown([]byte("# Title\n\nSome *emphasised* text with a [link](https://x.example)."), "a.md")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Text([]byte("Title\n\nSome emphasised text with a link."), "b.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if TextHash(a) != TextHash(b) {
		t.Errorf("hashes differ:\n%q\n%q", a.Text, b.Text)
	}
}

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Soil Report.pdf", "soil-report"},
		{"Quire/Inbox/Q3 — Results (final).PDF", "q3-results-final"},
		{`C:\Users\me\Über Größe.pdf`, "über-größe"},
		{"https://x.example/papers/attention.pdf?dl=1", "attention"},
		{"https://x.example/", "x-example"},
		{"../../..", "source"},
		{"", "source"},
		{strings.Repeat("long ", 40), strings.TrimSuffix(strings.Repeat("long-", 12), "-")},
	}
	for _, tt := range tests {
		if got := Slug(tt.in); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestErrorUnwrap(t *testing.T) {
	inner := errors.New("inner")
	err := error(&Error{Name: "a.pdf", Kind: ErrBroken, Detail: "page 2 cannot be read", Err: inner})
	if !errors.Is(err, ErrBroken) || !errors.Is(err, inner) {
		t.Errorf("errors.Is fails on %v", err)
	}
	if got, want := err.Error(), "extract a.pdf: broken file: page 2 cannot be read: inner"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
