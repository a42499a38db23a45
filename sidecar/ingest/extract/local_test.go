package extract

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestDropLocal: images and links to addresses the fetch guard refuses
// leave the Markdown and are counted; images past MaxImages too.
func TestDropLocal(t *testing.T) {
	var page strings.Builder
	page.WriteString(`<!doctype html><html><head><title>Crumb</title></head><body><article><h1>Crumb</h1>
<p>A long enough paragraph about bread crumb, its holes and how a starter makes them open and glossy over many hours.</p>
<p><a href="http://127.0.0.1:8080/x">the admin page</a>, <a href="http://[::1]/y">six</a>, <a href="http://2130706433/z">decimal</a>,
<a href="http://printer.localhost/">printer</a>, <a href="https://bread.example/crumb">a real site</a>.</p>
<p><a href="http://10.0.0.7/"><img src="https://cdn.example/linked.png" alt="linked"></a></p>
`)
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&page, `<p><img src="http://169.254.169.254/%d.png" alt="meta"></p>`, i)
	}
	for i := 0; i < MaxImages+5; i++ {
		fmt.Fprintf(&page, `<p><img src="https://cdn.example/%d.png" alt="pic"></p>`, i)
	}
	page.WriteString(`</article></body></html>`)
	doc, err := Any(context.Background(), []byte(page.String()), "", "text/html", "https://bread.example/crumb")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"127.0.0.1", "::1", "2130706433", "localhost", "169.254.169.254", "10.0.0.7"} {
		if strings.Contains(doc.Markdown, bad) {
			t.Errorf("the Markdown still has %s:\n%s", bad, doc.Markdown)
		}
	}
	for _, good := range []string{"the admin page", "https://bread.example/crumb", "https://cdn.example/linked.png", "https://cdn.example/0.png"} {
		if !strings.Contains(doc.Markdown, good) {
			t.Errorf("the Markdown lost %s:\n%s", good, doc.Markdown)
		}
	}
	if n := strings.Count(doc.Markdown, "!["); n != MaxImages {
		t.Errorf("%d images kept, want %d", n, MaxImages)
	}
	want := Removed{LocalImages: 300, LocalLinks: 5, OverImages: 6}
	if doc.Removed != want {
		t.Errorf("removed %+v, want %+v", doc.Removed, want)
	}
	for _, im := range doc.Images {
		if strings.Contains(im.URL, "169.254") {
			t.Errorf("Images keeps %s", im.URL)
		}
	}

	// A Markdown clip: the same in its links, images and HTML.
	clip := "---\ntitle: Clip\n---\nSee [home](http://192.168.1.1/) and <http://127.0.0.1/a>, ![x](http://[fe80::1]/i.png),\n" +
		"<img src=\"http://localhost/p.png\"> and http://127.0.0.1:9/raw but [ok](https://ok.example/).\n"
	doc, err = Any(context.Background(), []byte(clip), "clip.md", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Removed{LocalImages: 2, LocalLinks: 3}); doc.Removed != want {
		t.Errorf("clip: removed %+v, want %+v:\n%s", doc.Removed, want, doc.Markdown)
	}
	if strings.Contains(doc.Markdown, "192.168") || strings.Contains(doc.Markdown, "127.0.0.1") || strings.Contains(doc.Markdown, "localhost") ||
		!strings.Contains(doc.Markdown, "See home and") || !strings.Contains(doc.Markdown, "[ok](https://ok.example/)") {
		t.Errorf("clip:\n%s", doc.Markdown)
	}
}

// TestDropLocalNamesAndNesting: images and links on names only a local
// network resolves (one label, .local, .lan, .internal, .home.arpa) are
// left out like private addresses, and so is a destination behind link
// text with brackets nested to any depth (Obsidian renders such an image).
func TestDropLocalNamesAndNesting(t *testing.T) {
	clip := "# Clip\n\n" +
		"![a [b [c [d]]] e](http://printer.local/x.png) and ![logo](http://router/logo.png)\n\n" +
		"![meta [alt]](http://metadata.google.internal/computeMetadata/v1/) <img src=\"http://nas.lan/a.png\">\n\n" +
		"[deep [er [still]] text](http://10.0.0.1/) and [wiki](http://intranet/page) and [nested [x]](//nas.home.arpa/y)\n\n" +
		"[fine [nested] link](https://bread.example/a) ![fine](https://cdn.example/p.png)\n\n" +
		"![[Journal/secret]](http://10.0.0.2/a.png) [[Journal/diary]](http://router/)\n"
	doc, err := Any(context.Background(), []byte(clip), "clip.md", "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"printer.local", "router", "google.internal", "nas.lan", "10.0.0.1", "intranet/", "home.arpa"} {
		if strings.Contains(doc.Markdown, bad) {
			t.Errorf("the Markdown still has %s:\n%s", bad, doc.Markdown)
		}
	}
	for _, good := range []string{"still]] text", "wiki", "[fine [nested] link](https://bread.example/a)", "![fine](https://cdn.example/p.png)"} {
		if !strings.Contains(doc.Markdown, good) {
			t.Errorf("the Markdown lost %s:\n%s", good, doc.Markdown)
		}
	}
	if got := doc.Removed.LocalImages + doc.Removed.LocalLinks; got != 9 {
		t.Errorf("removed %+v, want 9 in all", doc.Removed)
	}
	// What is left of a dropped destination never becomes an embed or a
	// wikilink of a vault note.
	if strings.Contains(doc.Markdown, "[[Journal/secret]]") || strings.Contains(doc.Markdown, "[[Journal/diary]]") {
		t.Errorf("a dropped destination left an embed or a wikilink:\n%s", doc.Markdown)
	}
}
