package extract

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestMarkdownClip(t *testing.T) {
	tests := []struct {
		name, in                       string
		title, url, author, date, body string
	}{
		{
			name:  "clipper.md",
			in:    "---\ntitle: \"Tides explained\"\nsource: https://sea.example/tides\nauthor:\n  - \"[[Rosa Marin]]\"\n  - \"[[Ken Ito]]\"\npublished: 2022-07-01\ntags: [clippings]\n---\n# Tides explained\n\nThe moon pulls the ocean.\n",
			title: "Tides explained", url: "https://sea.example/tides", author: "Rosa Marin, Ken Ito", date: "2022-07-01",
			body: "# Tides explained\n\nThe moon pulls the ocean.\n",
		},
		{
			name:  "plain-note.md",
			in:    "Some intro.\n\n# The Heading\n\nBody **bold**.\n",
			title: "The Heading", body: "Some intro.\n\n# The Heading\n\nBody **bold**.\n",
		},
		{
			name:  "no-heading.md",
			in:    "---\nurl: https://a.example/x\nauthor: Jo\ndate: 2021-02-03T10:00:00Z\n---\njust text\n",
			title: "no-heading", url: "https://a.example/x", author: "Jo", date: "2021-02-03", body: "just text\n",
		},
		{
			// Broken YAML: the fields are lost, the clip is not.
			name:  "broken.md",
			in:    "---\ntitle: [unclosed\n---\nstill here\n",
			title: "broken", body: "still here\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Markdown([]byte(tt.in), tt.name)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct{ name, got, want string }{
				{"title", doc.Title, tt.title}, {"url", doc.URL, tt.url}, {"author", doc.Author, tt.author},
				{"date", doc.Date, tt.date}, {"markdown", doc.Markdown, tt.body},
			} {
				if f.got != f.want {
					t.Errorf("%s: got %q, want %q", f.name, f.got, f.want)
				}
			}
		})
	}
}

func TestText(t *testing.T) {
	in := "Meeting notes\r\n\r\n# not a heading\n<b>not bold</b> and [[not a link]] #notatag\n\n1. a list? no\n"
	doc, err := Text([]byte(in), "notes.txt", "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Meeting notes" {
		t.Errorf("title: got %q", doc.Title)
	}
	wantMD := "Meeting notes\n\n\\# not a heading\n\\<b>not bold\\</b> and \\[[not a link]] \\#notatag\n\n1\\. a list? no\n"
	if doc.Markdown != wantMD {
		t.Errorf("markdown:\ngot  %q\nwant %q", doc.Markdown, wantMD)
	}
	wantText := "Meeting notes\n\n# not a heading\n<b>not bold</b> and [[not a link]] #notatag\n\n1. a list? no"
	if doc.Text != wantText {
		t.Errorf("text:\ngot  %q\nwant %q", doc.Text, wantText)
	}
}

func TestTextLatin1(t *testing.T) {
	latin1 := []byte("Caf\xe9 cr\xe8me")
	for _, ct := range []string{"text/plain; charset=iso-8859-1", "text/plain", ""} {
		doc, err := Text(latin1, "x.txt", ct)
		if err != nil {
			t.Fatal(err)
		}
		if doc.Text != "Café crème" {
			t.Errorf("content type %q: got %q, want %q", ct, doc.Text, "Café crème")
		}
	}
}

func TestEmptyText(t *testing.T) {
	if _, err := Text([]byte(" \n\n "), "blank.txt", ""); !errors.Is(err, ErrEmpty) {
		t.Errorf("Text: got %v, want ErrEmpty", err)
	}
	if _, err := Markdown([]byte("---\ntitle: x\n---\n"), "blank.md"); !errors.Is(err, ErrEmpty) {
		t.Errorf("Markdown: got %v, want ErrEmpty", err)
	}
}

func TestEscapeBlockStart(t *testing.T) {
	tests := []struct{ in, want string }{
		{"# x", `\# x`}, {"> q", `\> q`}, {"- item", `\- item`}, {"---", `\---`}, {"-5 degrees", "-5 degrees"},
		{"1. one", `1\. one`}, {"12) twelve", `12\) twelve`}, {"2024. A year", `2024\. A year`},
		{"3.14 is pi", "3.14 is pi"}, {"| a | b |", `\| a | b |`}, {"plain", "plain"}, {"", ""},
	}
	for _, tt := range tests {
		if got := escapeBlockStart(tt.in); got != tt.want {
			t.Errorf("escapeBlockStart(%q) = %q, want %q", tt.in, got, tt.want)
		}
		// The escape is invisible in the text a reader sees.
		if tt.in != "" && strings.TrimSpace(plainText(escapeMarkdown(tt.in))) != strings.TrimSpace(tt.in) {
			t.Errorf("plainText(escapeMarkdown(%q)) = %q", tt.in, plainText(escapeMarkdown(tt.in)))
		}
	}
}

// TestTextEncodings: byte order marks, a declared charset and BOM-less
// UTF-16 are decoded; control characters never reach the Doc.
func TestTextEncodings(t *testing.T) {
	le := func(s string) []byte {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r), byte(r>>8))
		}
		return b
	}
	be := func(s string) []byte {
		var b []byte
		for _, r := range s {
			b = append(b, byte(r>>8), byte(r))
		}
		return b
	}
	const text = "Rye notes\n\nRye grows in cold soil, čau."
	tests := []struct {
		name, contentType string
		data              []byte
	}{
		{"utf16le-bom", "", append([]byte{0xff, 0xfe}, le(text)...)},
		{"utf16be-bom", "text/plain; charset=iso-8859-1", append([]byte{0xfe, 0xff}, be(text)...)}, // the mark wins
		{"utf16le-declared", "text/plain; charset=utf-16le", le(text)},
		{"utf16le-no-mark", "", le(text)},
		{"utf16be-no-mark", "", be(text)},
		{"utf8-bom", "", append([]byte("\xef\xbb\xbf"), text...)},
		{"iso-8859-2", "text/plain; charset=iso-8859-2", []byte("Rye notes\n\nRye grows in cold soil, \xe8au.")},
		{"controls", "", []byte("Rye\x00 notes\x1b\r\n\r\nRye grows\x0b in cold soil,\x07 čau.\x7f")},
	}
	for _, tt := range tests {
		doc, err := Any(context.Background(), tt.data, tt.name+".txt", tt.contentType, "")
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if doc.Title != "Rye notes" || !strings.Contains(doc.Text, "Rye grows in cold soil, čau.") {
			t.Errorf("%s: title %q, text %q", tt.name, doc.Title, doc.Text)
		}
		for _, s := range []string{doc.Title, doc.Markdown, doc.Text} {
			if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }) {
				t.Errorf("%s: control character in %q", tt.name, s)
			}
		}
	}
}
