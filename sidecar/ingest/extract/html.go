package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"github.com/quire-app/quire/sidecar/vault"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/unicode/norm"
)

// maxElements caps the elements of a page handed to readability, whose
// scoring slows down badly on huge documents; real articles stay far below.
const maxElements = 150_000

// HTML extracts the main article of a web page. pageURL is the page's final
// URL (after redirects): relative links and images are resolved against it
// and it becomes Doc.URL unless the page declares a canonical URL on the
// same host. contentType is the HTTP header, whose charset wins over the
// page's own <meta charset>; without either, bytes that are valid UTF-8 are
// read as UTF-8 and anything else as Windows-1252.
func HTML(body []byte, pageURL, contentType string) (doc *Doc, err error) {
	name := pageURL
	if name == "" {
		name = "page"
	}
	// The parser and the converter are pure Go, but a page is hostile input
	// and a panic here would take the whole sidecar down.
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, &Error{Name: name, Kind: ErrBroken, Detail: fmt.Sprintf("extractor crashed: %v", r)}
		}
	}()
	var base *url.URL
	if pageURL != "" {
		if base, err = url.Parse(pageURL); err != nil {
			return nil, &Error{Name: name, Kind: ErrUnsupported, Detail: "bad page URL", Err: err}
		}
	}
	root, err := html.Parse(strings.NewReader(decodeHTML(body, contentType)))
	if err != nil {
		return nil, &Error{Name: name, Kind: ErrBroken, Err: err}
	}
	if n := countElements(root); n > maxElements {
		return nil, &Error{Name: name, Kind: ErrUnsupported, Detail: fmt.Sprintf("page too large (%d elements)", n)}
	}

	meta := readMeta(root)
	markCodeLanguages(root)
	clean(root)

	parser := readability.NewParser()
	article, err := parser.ParseAndMutate(root, base)
	if err != nil {
		return nil, &Error{Name: name, Kind: ErrBroken, Err: err}
	}
	content := article.Node
	if content == nil {
		content = findElement(root, atom.Body)
	}
	if content == nil {
		return nil, &Error{Name: name, Kind: ErrEmpty}
	}

	doc = &Doc{
		Title:  oneLine(firstOf(article.Title(), meta.title)),
		Author: byline(firstOf(article.Byline(), meta.author)),
		Site:   oneLine(article.SiteName()),
		Lang:   oneLine(firstOf(meta.lang, article.Language())),
		URL:    pageURL,
	}
	if t, err := article.PublishedTime(); err == nil {
		doc.Date = t.Format("2006-01-02")
	}
	if doc.Date == "" {
		doc.Date = meta.date
	}
	if doc.Site == "" && base != nil {
		doc.Site = strings.TrimPrefix(base.Hostname(), "www.")
	}
	if c := canonical(meta.canonical, base); c != "" {
		doc.URL = c
	}
	if doc.Title == "" {
		doc.Title = titleFromName(name)
	}

	doc.Images = fixLinks(content, base)
	restoreCodeLanguages(content)
	md, err := toMarkdown(content, pageURL)
	if err != nil {
		return nil, &Error{Name: name, Kind: ErrBroken, Detail: "convert to markdown", Err: err}
	}
	doc.Markdown = dropBylineBlock(md, doc.Author)
	doc.Text = plainText(doc.Markdown)
	if strings.TrimSpace(doc.Text) == "" {
		return nil, &Error{Name: name, Kind: ErrEmpty}
	}
	return doc, nil
}

// decodeHTML returns the page as UTF-8 text in NFC. The charset comes from a
// byte order mark, then the Content-Type header, then <meta>; a page that
// declares nothing is UTF-8 if its bytes are valid UTF-8 (the common case
// today), else Windows-1252 (what browsers assume for Latin-1 pages).
func decodeHTML(body []byte, contentType string) string {
	enc, _, certain := charset.DetermineEncoding(body, contentType)
	if !certain && utf8.Valid(body) {
		return vault.CleanText(norm.NFC.String(strings.TrimPrefix(string(body), "\ufeff")))
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		out = body
	}
	return vault.CleanText(norm.NFC.String(strings.TrimPrefix(string(out), "\ufeff")))
}

func countElements(n *html.Node) int {
	c := 0
	for d := range n.Descendants() {
		if d.Type == html.ElementNode {
			c++
		}
	}
	return c
}

// pageMeta is what the page says about itself outside the article, read
// before readability rewrites the tree.
type pageMeta struct {
	title, author, date, lang, canonical string
}

// dateMetas are <meta name|property|itemprop> keys that carry a publication
// date, beyond those readability already reads (article:published_time,
// JSON-LD datePublished, dcterms.*).
var dateMetas = []string{"date", "pubdate", "publishdate", "publish-date", "publication_date",
	"citation_publication_date", "citation_date", "dc.date", "dc.date.issued", "dc.date.created",
	"sailthru.date", "article.published", "datepublished", "og:published_time", "og:article:published_time"}

func readMeta(root *html.Node) pageMeta {
	var m pageMeta
	metas := map[string]string{}
	var timeAttr string
	for n := range root.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.Html:
			m.lang = attr(n, "lang")
		case atom.Title:
			if m.title == "" {
				m.title = textOf(n)
			}
		case atom.Meta:
			key := strings.ToLower(firstOf(attr(n, "name"), attr(n, "property"), attr(n, "itemprop"), attr(n, "http-equiv")))
			if key != "" && metas[key] == "" {
				metas[key] = firstOf(attr(n, "content"), attr(n, "datetime"))
			}
		case atom.Link:
			if strings.EqualFold(attr(n, "rel"), "canonical") && m.canonical == "" {
				m.canonical = attr(n, "href")
			}
		case atom.Time:
			if timeAttr == "" {
				timeAttr = attr(n, "datetime")
			}
		case atom.Script:
			// JSON-LD author as a plain object (readability reads names
			// only from some shapes of it).
			if attr(n, "type") == "application/ld+json" && m.author == "" {
				m.author = jsonLDAuthor(textOf(n))
			}
		}
	}
	if m.author == "" {
		m.author = firstOf(metas["author"], metas["dc.creator"], metas["citation_author"], metas["sailthru.author"])
	}
	if m.lang == "" {
		m.lang = firstOf(metas["content-language"], metas["og:locale"], metas["dc.language"])
	}
	for _, k := range dateMetas {
		if d := normDate(metas[k]); d != "" {
			m.date = d
			break
		}
	}
	if m.date == "" {
		m.date = normDate(timeAttr)
	}
	return m
}

func jsonLDAuthor(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return ""
	}
	var find func(v any, depth int) string
	find = func(v any, depth int) string {
		if depth > 4 {
			return ""
		}
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				if a := find(x, depth+1); a != "" {
					return a
				}
			}
		case map[string]any:
			if a, ok := v["author"]; ok {
				return names(a)
			}
			if g, ok := v["@graph"]; ok {
				return find(g, depth+1)
			}
		}
		return ""
	}
	return find(v, 0)
}

func names(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		if s, ok := v["name"].(string); ok {
			return s
		}
	case []any:
		var out []string
		for _, x := range v {
			if s := names(x); s != "" {
				out = append(out, s)
			}
		}
		return strings.Join(out, ", ")
	}
	return ""
}

var byPrefix = regexp.MustCompile(`(?i)^(by|von|por|par|di|od)\s+`)

func byline(s string) string {
	s = oneLine(s)
	s = byPrefix.ReplaceAllString(s, "")
	if len(s) > 200 {
		return ""
	}
	return s
}

// dropBylineBlock removes a first paragraph that only repeats the byline
// ("By Marta Kowalska"): the author is in the metadata already.
func dropBylineBlock(md, author string) string {
	if author == "" {
		return md
	}
	first, rest, ok := strings.Cut(md, "\n\n")
	if !ok {
		return md
	}
	if strings.EqualFold(byline(plainText(first)), author) {
		return rest
	}
	return md
}

// canonical returns the page's declared canonical URL when it is http(s)
// and on the page's own host: a page must not be able to claim to be
// another site's article.
func canonical(href string, base *url.URL) string {
	if href == "" || base == nil {
		return ""
	}
	u, err := base.Parse(strings.TrimSpace(href))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.EqualFold(u.Hostname(), base.Hostname()) {
		return ""
	}
	return u.String()
}

// Elements that never hold article text.
var dropTags = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Template: true, atom.Iframe: true,
	atom.Object: true, atom.Embed: true, atom.Form: true, atom.Button: true,
	atom.Input: true, atom.Select: true, atom.Textarea: true, atom.Nav: true,
	atom.Footer: true, atom.Aside: true, atom.Dialog: true, atom.Canvas: true,
	atom.Svg: true,
}

var dropRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true, "dialog": true, "alertdialog": true, "menu": true, "menubar": true,
}

// clutterWords are class and id words of ads, cookie banners and share
// bars. They are matched against whole words of a class or id split at
// "-" and "_", so "ad-slot" matches and "header" or "shadow" do not.
var clutterWords = map[string]bool{
	"ad": true, "ads": true, "adv": true, "advert": true, "adverts": true, "advertisement": true,
	"adsbygoogle": true, "adslot": true, "adunit": true, "sponsor": true, "sponsored": true,
	"cookie": true, "cookies": true, "consent": true, "gdpr": true, "newsletter": true,
	"share": true, "sharing": true, "social": true, "promo": true, "outbrain": true, "taboola": true,
}

// clean removes what readability might keep but a note never wants:
// scripts and styles, navigation, footers, sidebars, forms, ads, cookie
// banners, share bars, hidden elements.
func clean(n *html.Node) { cleanIn(n, false) }

// cleanIn does the work of clean; inArticle tells whether n is inside an
// <article> or <main>, where a <header> holds the article's own title and
// byline rather than the site's logo and menu.
func cleanIn(n *html.Node, inArticle bool) {
	var next *html.Node
	for c := n.FirstChild; c != nil; c = next {
		next = c.NextSibling
		switch {
		case c.Type == html.CommentNode:
			n.RemoveChild(c)
		case c.Type != html.ElementNode:
		case c.DataAtom == atom.Script && attr(c, "type") == "application/ld+json":
			// Readability reads the publication date and author from
			// JSON-LD, and removes every script itself afterwards.
		case dropTags[c.DataAtom], dropRoles[strings.ToLower(attr(c, "role"))],
			c.DataAtom == atom.Header && !inArticle,
			hasAttr(c, "hidden"), attr(c, "aria-hidden") == "true", isClutter(c):
			n.RemoveChild(c)
		default:
			cleanIn(c, inArticle || c.DataAtom == atom.Article || c.DataAtom == atom.Main)
		}
	}
}

func isClutter(n *html.Node) bool {
	if n.DataAtom == atom.Body || n.DataAtom == atom.Html || n.DataAtom == atom.Main || n.DataAtom == atom.Article {
		return false
	}
	for _, v := range []string{attr(n, "class"), attr(n, "id")} {
		for _, word := range strings.FieldsFunc(strings.ToLower(v), func(r rune) bool {
			return r == ' ' || r == '-' || r == '_' || r == '\t' || r == '\n'
		}) {
			if clutterWords[word] {
				return true
			}
		}
	}
	return false
}

// Readability strips classes, and with them the language of code blocks;
// it keeps data- attributes, so the language rides there meanwhile.
func markCodeLanguages(root *html.Node) {
	for n := range root.Descendants() {
		if n.Type != html.ElementNode || (n.DataAtom != atom.Code && n.DataAtom != atom.Pre) {
			continue
		}
		for _, c := range strings.Fields(attr(n, "class")) {
			if lang, ok := strings.CutPrefix(c, "language-"); ok && lang != "" {
				setAttr(n, "data-quire-lang", lang)
			} else if lang, ok := strings.CutPrefix(c, "lang-"); ok && lang != "" {
				setAttr(n, "data-quire-lang", lang)
			}
		}
	}
}

func restoreCodeLanguages(root *html.Node) {
	for n := range root.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		if lang := attr(n, "data-quire-lang"); lang != "" {
			setAttr(n, "class", "language-"+lang)
		}
	}
}

// fixLinks makes every link and image absolute, unwraps links that are not
// http(s) or mailto (javascript:, data:), drops images that are not http(s)
// (data: URIs would bloat the note) and tracking pixels, and returns the
// images kept, in order and without repeats.
func fixLinks(root *html.Node, base *url.URL) []Image {
	var images []Image
	seen := map[string]bool{}
	var drop, unwrap []*html.Node
	for n := range root.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.A:
			u := resolve(attr(n, "href"), base)
			if u == nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "mailto") {
				unwrap = append(unwrap, n)
				continue
			}
			setAttr(n, "href", u.String())
		case atom.Img:
			u := resolve(firstOf(attr(n, "src"), attr(n, "data-src")), base)
			if u == nil || (u.Scheme != "http" && u.Scheme != "https") || pixel(n) {
				drop = append(drop, n)
				continue
			}
			s := u.String()
			setAttr(n, "src", s)
			removeAttr(n, "srcset")
			if !seen[s] {
				seen[s] = true
				images = append(images, Image{URL: s, Alt: oneLine(attr(n, "alt"))})
			}
		case atom.Source, atom.Picture, atom.Video, atom.Audio:
			// <picture> keeps its <img>; the other sources are alternatives.
			if n.DataAtom == atom.Source {
				drop = append(drop, n)
			}
		}
	}
	for _, n := range drop {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
	for _, n := range unwrap {
		p := n.Parent
		if p == nil {
			continue
		}
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			n.RemoveChild(c)
			p.InsertBefore(c, n)
			c = next
		}
		p.RemoveChild(n)
	}
	return images
}

func resolve(ref string, base *url.URL) *url.URL {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return nil
	}
	u, err := url.Parse(ref)
	if err != nil {
		return nil
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if !u.IsAbs() {
		return nil
	}
	return u
}

func pixel(n *html.Node) bool {
	w, werr := strconv.Atoi(strings.TrimSuffix(attr(n, "width"), "px"))
	h, herr := strconv.Atoi(strings.TrimSuffix(attr(n, "height"), "px"))
	return werr == nil && w <= 2 || herr == nil && h <= 2
}

var mdConverter = converter.NewConverter(converter.WithPlugins(
	base.NewBasePlugin(),
	commonmark.NewCommonmarkPlugin(commonmark.WithHeadingStyle(commonmark.HeadingStyleATX)),
	strikethrough.NewStrikethroughPlugin(),
	table.NewTablePlugin(),
))

var manyBlankLines = regexp.MustCompile(`\n{3,}`)

func toMarkdown(n *html.Node, pageURL string) (string, error) {
	out, err := mdConverter.ConvertNode(n, converter.WithDomain(pageURL))
	if err != nil {
		return "", err
	}
	out = bytes.TrimSpace(out)
	out = manyBlankLines.ReplaceAll(out, []byte("\n\n"))
	return escapeObsidian(string(out)) + "\n", nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return true
		}
	}
	return false
}

func setAttr(n *html.Node, key, val string) {
	for i, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			n.Attr[i].Val = val
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: val})
}

func removeAttr(n *html.Node, key string) {
	for i, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			n.Attr = append(n.Attr[:i], n.Attr[i+1:]...)
			return
		}
	}
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return oneLine(b.String())
}

func findElement(n *html.Node, a atom.Atom) *html.Node {
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && d.DataAtom == a {
			return d
		}
	}
	return nil
}
