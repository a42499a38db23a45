package extract

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHTML(t *testing.T) {
	tests := []struct {
		file, url, contentType string
		title, author, date    string
		site, lang, docURL     string
		images                 []string
		has                    []string // in the Markdown
		hasNot                 []string // in the Markdown
		text                   []string // in the plain text
	}{
		{
			file: "blog.html", url: "https://crumb.example/posts/sourdough-rise?utm_source=feed", contentType: "text/html; charset=utf-8",
			title: "Why Sourdough Rises Slowly", author: "Marta Kowalska", date: "2024-03-05",
			site: "The Crumb Journal", lang: "en", docURL: "https://crumb.example/posts/sourdough-rise",
			images: []string{"https://crumb.example/img/starter.jpg"},
			has: []string{
				"## The culture in the jar",
				"- Temperature: below 24 °C the yeasts work slowly.",
				"> Patience is the main ingredient of a good loaf.",
				"![A jar of bubbling starter](https://crumb.example/img/starter.jpg)",
				"[our starter care guide](https://crumb.example/posts/starter-care)",
			},
			hasNot: []string{"TRACKING-SCRIPT-TEXT", "ACCEPT-ALL-COOKIES", "NAV-LINK-TEXT", "BUY-OUR-FLOUR",
				"SIDEBAR-POPULAR-POST", "SIDEBAR-AD-TEXT", "FOOTER-COPYRIGHT-TEXT", "SHARE-ON-SOCIAL", "pixel.gif",
				"font-family", "<script", "UA-123", "By [Marta Kowalska]"},
			text: []string{"Patience is the main ingredient of a good loaf.", "Read more in our starter care guide."},
		},
		{
			file: "table-code.html", url: "https://go.example/blog/slices", contentType: "text/html",
			title: "Go slices in practice", date: "2023-11-20", site: "go.example", lang: "en-GB",
			docURL: "https://go.example/blog/slices",
			has: []string{
				"| Length | Capacity | Growth",
				"| 600    | 848      | 1.25x plus |",
				"```go\nfunc squares(n int) []int {\n\tout := make([]int, 0, n)",
				"with `make` and then append",
			},
			hasNot: []string{"FOOTER-TEXT", "[Docs]", "<table"},
			text:   []string{"600\t848\t1.25x plus", "out = append(out, i*i)"},
		},
		{
			// Latin-1 declared by <meta>, no charset in the header.
			file: "latin1.html", url: "https://cafe.example/gare", contentType: "text/html",
			title: "Le café de la gare", site: "cafe.example", lang: "fr", docURL: "https://cafe.example/gare",
			has:  []string{"Près de la gare, un petit café", "« Ici, on ne se presse pas »", "crème fraîche"},
			text: []string{"Hélène Duboeuf"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			doc, err := HTML(readFixture(t, tt.file), tt.url, tt.contentType)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct{ name, got, want string }{
				{"title", doc.Title, tt.title}, {"author", doc.Author, tt.author}, {"date", doc.Date, tt.date},
				{"site", doc.Site, tt.site}, {"lang", doc.Lang, tt.lang}, {"url", doc.URL, tt.docURL},
			} {
				if f.got != f.want {
					t.Errorf("%s: got %q, want %q", f.name, f.got, f.want)
				}
			}
			var imgs []string
			for _, im := range doc.Images {
				imgs = append(imgs, im.URL)
			}
			if strings.Join(imgs, " ") != strings.Join(tt.images, " ") {
				t.Errorf("images: got %q, want %q", imgs, tt.images)
			}
			for _, s := range tt.has {
				if !strings.Contains(doc.Markdown, s) {
					t.Errorf("markdown lacks %q:\n%s", s, doc.Markdown)
				}
			}
			for _, s := range tt.hasNot {
				if strings.Contains(doc.Markdown, s) {
					t.Errorf("markdown has %q:\n%s", s, doc.Markdown)
				}
			}
			for _, s := range tt.text {
				if !strings.Contains(doc.Text, s) {
					t.Errorf("text lacks %q:\n%s", s, doc.Text)
				}
			}
			if strings.Contains(doc.Text, "](") || strings.Contains(doc.Text, "**") {
				t.Errorf("text has Markdown syntax:\n%s", doc.Text)
			}
		})
	}
}

// The header's charset wins over the page's <meta>, and a page that
// declares nothing is read as UTF-8 when it is valid UTF-8, else as
// Windows-1252.
func TestHTMLCharset(t *testing.T) {
	latin1 := readFixture(t, "latin1.html")
	noMeta := []byte(strings.Replace(string(latin1), `<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">`, "", 1))
	utf8Page := []byte(`<html><head><meta charset="iso-8859-1"><title>t</title></head><body><article><p>` +
		strings.Repeat("Žluťoučký kůň úpěl ďábelské ódy. ", 20) + `</p></article></body></html>`)
	// All ASCII in the first 1024 bytes, where the standard sniffer looks.
	lateUTF8 := []byte(`<html><head><title>t</title></head><body><article><p>` + strings.Repeat("Plain ASCII words first. ", 60) +
		`</p><p>` + strings.Repeat("Žluťoučký kůň úpěl ďábelské ódy. ", 20) + `</p></article></body></html>`)
	tests := []struct {
		name        string
		body        []byte
		contentType string
		want        string
	}{
		{"meta", latin1, "text/html", "Près de la gare"},
		{"header", noMeta, "text/html; charset=ISO-8859-1", "Près de la gare"},
		{"undeclared latin-1", noMeta, "", "Près de la gare"},
		{"undeclared utf-8", lateUTF8, "text/html", "Žluťoučký kůň"},
		{"header utf-8 beats meta", utf8Page, "text/html; charset=utf-8", "Žluťoučký kůň"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := HTML(tt.body, "https://x.example/", tt.contentType)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(doc.Text, tt.want) {
				t.Errorf("text lacks %q:\n%s", tt.want, doc.Text)
			}
			if strings.ContainsRune(doc.Text, '\uFFFD') {
				t.Errorf("text has replacement characters:\n%s", doc.Text)
			}
		})
	}
}

func TestHTMLHostileLinks(t *testing.T) {
	page := `<html><head><title>Links</title><link rel="canonical" href="https://other.example/stolen"></head><body><article>
<p>` + strings.Repeat("Plain words about nothing in particular. ", 20) + `</p>
<p><a href="javascript:alert(1)">click me</a> and <a href="data:text/html,x">data link</a> and <a href="/rel">relative</a>.</p>
<p><img src="data:image/png;base64,iVBORw0KGgo=" alt="inline"><img src="img/a.png" alt="relative image"></p>
</article></body></html>`
	doc, err := HTML([]byte(page), "https://site.example/dir/page", "text/html")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"javascript:", "data:", "other.example"} {
		if strings.Contains(doc.Markdown, bad) || strings.Contains(doc.URL, bad) {
			t.Errorf("output keeps %q: url %q\n%s", bad, doc.URL, doc.Markdown)
		}
	}
	for _, good := range []string{"click me", "[relative](https://site.example/rel)", "![relative image](https://site.example/dir/img/a.png)"} {
		if !strings.Contains(doc.Markdown, good) {
			t.Errorf("markdown lacks %q:\n%s", good, doc.Markdown)
		}
	}
	if doc.URL != "https://site.example/dir/page" {
		t.Errorf("url: got %q, want the page's own", doc.URL)
	}
}

// A short page is kept whole by readability, so the site's own header must
// already be gone; an article's header stays.
func TestHTMLShortPage(t *testing.T) {
	page := `<html><head><title>Short note</title></head><body><header><a href="/">SITE-LOGO</a></header>
<article><header><p>ARTICLE-HEADER</p></header><p>Just one short paragraph here.</p></article></body></html>`
	doc, err := HTML([]byte(page), "https://x.example/s", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc.Markdown, "SITE-LOGO") || !strings.Contains(doc.Markdown, "ARTICLE-HEADER") ||
		!strings.Contains(doc.Markdown, "Just one short paragraph here.") {
		t.Errorf("markdown:\n%s", doc.Markdown)
	}
}

// Page text cannot become vault syntax: no [[links]], embeds, %%comments%%,
// #tags or HTML in the note, while the plain text keeps every character and
// code keeps its own.
func TestHTMLVaultSyntaxEscaped(t *testing.T) {
	page := `<html><body><article><p>` + strings.Repeat("Filler words for length. ", 30) + `</p>
<p>Try [[Secret Page]] and ![[embed.png]] and %%hidden%% and &lt;script&gt;x&lt;/script&gt; and #politics (#news) but C# and #1.</p>
<p>Code <code>a %% b #c</code> stays.</p><pre><code>x := "%%" // #tag
</code></pre></article></body></html>`
	doc, err := HTML([]byte(page), "https://x.example/", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"[[Secret", "![[embed", "%%hidden", "<script>", " #politics", "(#news"} {
		if strings.Contains(doc.Markdown, bad) {
			t.Errorf("markdown has %q:\n%s", bad, doc.Markdown)
		}
	}
	for _, good := range []string{"C# and #1.", "`a %% b #c`", "x := \"%%\" // #tag"} {
		if !strings.Contains(doc.Markdown, good) {
			t.Errorf("markdown lacks %q:\n%s", good, doc.Markdown)
		}
	}
	want := "Try [[Secret Page]] and ![[embed.png]] and %%hidden%% and <script>x</script> and #politics (#news) but C# and #1."
	if !strings.Contains(doc.Text, want) {
		t.Errorf("text lacks %q:\n%s", want, doc.Text)
	}
}

func TestHTMLEmpty(t *testing.T) {
	for _, page := range []string{"", "<html><body><nav>menu</nav><script>x()</script></body></html>"} {
		_, err := HTML([]byte(page), "https://x.example/", "text/html")
		if !errors.Is(err, ErrEmpty) {
			t.Errorf("HTML(%q): got %v, want ErrEmpty", page, err)
		}
	}
}
