package compile

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/vault"
)

// Rendering: the source note, concept and entity pages, review items. All
// model text reaching here has been through the checker; source metadata
// goes through plain.

// sourceMeta is a source note's frontmatter, in the order it is written.
type sourceMeta struct {
	Quire       string   `yaml:"quire"`
	Kind        string   `yaml:"quire_kind"`
	Format      int      `yaml:"quire_format"`
	Title       string   `yaml:"title"`
	Source      string   `yaml:"source"`
	URL         string   `yaml:"url,omitempty"`
	Author      string   `yaml:"author,omitempty"`
	Published   string   `yaml:"published,omitempty"`
	Site        string   `yaml:"site,omitempty"`
	Lang        string   `yaml:"lang,omitempty"`
	Pages       int      `yaml:"pages,omitempty"`
	Captured    string   `yaml:"captured"`
	ContentHash string   `yaml:"content_hash"`
	Raw         string   `yaml:"raw,omitempty"`
	Summarised  bool     `yaml:"summarised"`
	Model       string   `yaml:"model,omitempty"`
	Unread      float64  `yaml:"unread,omitempty"`
	Tags        []string `yaml:"tags"`
	// Private is the private mark (vault.Note.Private) of a note made
	// from a private source.
	Private bool   `yaml:"private,omitempty"`
	Hash    string `yaml:"quire_hash"`
}

// pageFront is a concept or entity page's frontmatter.
type pageFront struct {
	Quire      string   `yaml:"quire"`
	Kind       string   `yaml:"quire_kind"`
	Format     int      `yaml:"quire_format"`
	Title      string   `yaml:"title"`
	EntityKind string   `yaml:"entity_kind,omitempty"`
	Sources    []string `yaml:"quire_sources"`
	// Summary lists the sources a concept page's summary was made from
	// (consolidate.go); none while it has no summary.
	Summary []string `yaml:"quire_summary,omitempty"`
	Hash    string   `yaml:"quire_hash"`
}

// reviewFront is a review item's frontmatter.
type reviewFront struct {
	Quire  string `yaml:"quire"`
	Kind   string `yaml:"quire_kind"`
	Format int    `yaml:"quire_format"`
	Reason string `yaml:"reason"`
	About  string `yaml:"about,omitempty"`
	Source string `yaml:"source_note,omitempty"`
	// Lint names the check of a review item lint wrote (Lint*).
	Lint string `yaml:"quire_lint,omitempty"`
	// Private marks an item made from a private source.
	Private bool   `yaml:"private,omitempty"`
	Hash    string `yaml:"quire_hash"`
}

// item is a checked concept or entity: its name as the source writes it,
// its description, and the page it lives on.
type item struct {
	Name, Kind, Description string
	Path                    string // vault-relative
}

// link is a checked connection.
type link struct {
	Path, Label, Reason string
}

// conflict is a checked contradiction with an existing page.
type conflict struct {
	Page               link
	Snippet            string
	Claim, Explanation string
}

// draft is the source note, checked, ready to render.
type draft struct {
	Title, OneLiner string
	Summary         string
	KeyIdeas        []string
	Glossary        []term
	Quotes          []string
	Concepts        []item
	Entities        []item
	Connections     []link
	Conflicts       []conflict
	Tags            []string

	Summarised bool
	Reason     string  // why not summarised
	Unread     float64 // share not read
	UnreadNote string  // the callout's sentence about it
	Checks     string  // "dropped 2 quotes not in the source"
	SearchErr  string  // why the connections are missing, if search failed
	Model      string
}

// plain makes source metadata or vault text safe on one line.
func plain(s string) string { return escapeText(oneLine(scrub(s))) }

// renderSource writes the source note.
func renderSource(c *compiler, d draft) ([]byte, error) {
	doc := c.src.Doc
	meta := sourceMeta{
		Quire: Marker, Kind: "source", Format: Format,
		Title: d.Title, Source: c.src.Origin, URL: doc.URL, Author: doc.Author, Published: doc.Date,
		Site: doc.Site, Lang: doc.Lang, Pages: doc.Pages,
		Captured: c.captured.UTC().Format(time.RFC3339), ContentHash: c.src.Hash, Raw: c.src.Raw,
		Summarised: d.Summarised, Model: d.Model, Unread: round2(d.Unread), Tags: d.Tags, Private: c.privateSrc,
	}
	if meta.Tags == nil {
		meta.Tags = []string{}
	}
	var b strings.Builder
	b.WriteString("\n# " + plain(d.Title) + "\n\n")
	if !d.Summarised {
		b.WriteString("> [!warning] Not summarised\n")
		b.WriteString("> " + plain(d.Reason) + ", so this note holds the source's clean text without a summary. ")
		b.WriteString("To summarise it once a model is available, use *Summarise again* here or the command *Quire: Summarise this source again* (on a command line: `quire ingest --resummarise " + shellQuote(c.src.Origin) + "`).\n\n")
	} else if d.UnreadNote != "" {
		b.WriteString("> [!warning] Partly read\n> " + d.UnreadNote + "\n\n")
	}
	if d.Summarised {
		if d.OneLiner != "" {
			b.WriteString("*" + d.OneLiner + "*\n\n")
		}
		b.WriteString("## Summary\n\n" + orNone(d.Summary) + "\n\n")
		b.WriteString("## Key ideas\n\n")
		bullets(&b, d.KeyIdeas)
		b.WriteString("## Glossary\n\n")
		gl := make([]string, len(d.Glossary))
		for i, t := range d.Glossary {
			gl[i] = "**" + t.Term + "** — " + t.Definition
		}
		bullets(&b, gl)
		b.WriteString("## Quotes\n\n")
		if len(d.Quotes) == 0 {
			b.WriteString("None.\n\n")
		}
		for _, q := range d.Quotes {
			b.WriteString("> " + escapeText(q) + "\n\n")
		}
		if len(d.Concepts)+len(d.Entities) > 0 {
			b.WriteString("## Concepts and entities\n\n")
			var ls []string
			for _, it := range d.Concepts {
				ls = append(ls, wikilink(it.Path, it.Name))
			}
			for _, it := range d.Entities {
				ls = append(ls, wikilink(it.Path, it.Name)+" ("+plain(it.Kind)+")")
			}
			bullets(&b, ls)
		}
	}
	b.WriteString("## Connections\n\n")
	cs := make([]string, len(d.Connections))
	for i, l := range d.Connections {
		cs[i] = wikilink(l.Path, l.Label)
		if l.Reason != "" {
			cs[i] += " — " + l.Reason
		}
	}
	if d.SearchErr != "" && len(cs) == 0 {
		b.WriteString(plain(d.SearchErr) + "\n\n")
	} else {
		bullets(&b, cs)
	}
	b.WriteString("## Source\n\n")
	var about []string
	if doc.URL != "" {
		about = append(about, "Address: <"+strings.ReplaceAll(doc.URL, ">", "%3E")+">")
	} else {
		about = append(about, "File: "+plain(c.src.Origin))
	}
	if doc.Author != "" {
		about = append(about, "Author: "+plain(doc.Author))
	}
	if doc.Date != "" {
		about = append(about, "Published: "+plain(doc.Date))
	}
	if doc.Site != "" {
		about = append(about, "Site: "+plain(doc.Site))
	}
	if doc.Pages > 0 {
		pages := "Pages: " + strconv.Itoa(doc.Pages)
		if doc.PagesRead > 0 && doc.PagesRead < doc.Pages {
			pages += fmt.Sprintf(" (only the first %d were read)", doc.PagesRead)
		}
		about = append(about, pages)
	}
	if c.src.Raw != "" {
		about = append(about, "Original: "+rawLink(c.src.Raw))
	}
	if left := leftOut(doc.Removed); left != "" {
		about = append(about, "Left out: "+left)
	}
	bullets(&b, about)
	if d.Summarised {
		b.WriteString("## Checks\n\n")
		if d.Checks == "" {
			b.WriteString("Every quote, term, name, link and address above was found in the source or the vault.\n")
		} else {
			b.WriteString("Quire checked the model's notes against the source and " + d.Checks + ".\n")
		}
	} else {
		b.WriteString("## Text\n\n")
		text := demote(strings.TrimSpace(doc.Markdown))
		front, err := yaml.Marshal(meta)
		if err != nil {
			return nil, err
		}
		// What the note holds besides the text: frontmatter (and its
		// hash), the sections above, the notice below.
		room := c.maxNoteBytes() - int64(len(front)+b.Len()+1024)
		if int64(len(text)) > room {
			kept := cutText(text, int(max(room, 0)))
			where := "the source"
			if c.src.Raw != "" {
				where = "the " + rawLink(c.src.Raw)
			}
			fmt.Fprintf(&b, "> [!note] Text shortened\n> The source's text is %s; this note keeps the first %s, so that Quire can index it. The whole text is in %s.\n\n",
				megabytes(len(text)), megabytes(len(kept)), where)
			text = kept
		}
		b.WriteString(text)
		b.WriteString("\n")
	}
	return seal(meta, b.String())
}

func (c *compiler) maxNoteBytes() int64 {
	if c.opt.MaxNoteBytes > 0 {
		return c.opt.MaxNoteBytes
	}
	return DefaultMaxNoteBytes
}

// cutText returns at most n bytes of s, ending at a paragraph break (or a
// line, or a character) in its second half.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	if i := strings.LastIndex(s, "\n\n"); i > n/2 {
		return s[:i]
	}
	if i := strings.LastIndexByte(s, '\n'); i > n/2 {
		return s[:i]
	}
	return strings.ToValidUTF8(s, "") // the last character may be cut
}

// megabytes prints a size for a reader: "30.2 MB", "850 KB".
func megabytes(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", (n+1023)/1024)
}

// leftOut says what extraction removed from the text, or "".
func leftOut(r extract.Removed) string {
	var parts []string
	count := func(n int, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.Itoa(n) + " " + one + "s"
	}
	if r.LocalImages > 0 {
		parts = append(parts, count(r.LocalImages, "image")+" on a private or local address")
	}
	if r.LocalLinks > 0 {
		parts = append(parts, count(r.LocalLinks, "link")+" to a private or local address")
	}
	if r.OverImages > 0 {
		parts = append(parts, count(r.OverImages, "image")+" past the "+strconv.Itoa(extract.MaxImages)+" a note keeps")
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, ", ") + " (the original has them)."
}

// section is what a source adds to a concept or entity page.
func section(sourcePath, sourceTitle string, it item) string {
	return "## From " + wikilink(sourcePath, sourceTitle) + "\n\n" + orNone(it.Description) + "\n"
}

// renderPage writes a new concept or entity page.
func renderPage(kind string, it item, hash12, sec string) ([]byte, error) {
	meta := pageFront{Quire: Marker, Kind: kind, Format: Format, Title: it.Name, Sources: []string{hash12}}
	if kind == "entity" {
		meta.EntityKind = it.Kind
	}
	return seal(meta, "\n# "+escapeText(it.Name)+"\n\n"+sec)
}

// extendPage adds a section to a page Quire wrote and nobody edited.
func extendPage(doc []byte, hash12, sec string) ([]byte, error) {
	var meta pageFront
	body, err := vault.DecodeFrontmatter(doc, &meta)
	if err != nil {
		return nil, err
	}
	meta.Sources = append(meta.Sources, hash12)
	meta.Format, meta.Hash = Format, ""
	return seal(meta, strings.TrimRight(string(body), "\n")+"\n\n"+sec)
}

// renderReview writes a review item; private marks one made from a
// private source.
func renderReview(reason, about, sourcePath, title, body string, private bool) ([]byte, error) {
	meta := reviewFront{Quire: Marker, Kind: "review", Format: Format, Reason: reason, About: about, Source: sourcePath, Private: private}
	return seal(meta, "\n# "+escapeText(title)+"\n\n"+escapeText(reason)+"\n\n"+body)
}

func bullets(b *strings.Builder, items []string) {
	if len(items) == 0 {
		b.WriteString("None.\n\n")
		return
	}
	for _, it := range items {
		b.WriteString("- " + it + "\n")
	}
	b.WriteString("\n")
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "None."
	}
	return s
}

// rawLink links the saved original; Obsidian needs the extension of a
// file that is not a note.
func rawLink(p string) string {
	return "[[" + linkUnsafe.Replace(p) + "|original]]"
}

func round2(x float64) float64 { return float64(int(x*100+0.5)) / 100 }

// shellQuote quotes a source for the command line shown in a note.
func shellQuote(s string) string {
	s = oneLine(scrub(s))
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_./:=?&%+~,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tag makes a model's tag an Obsidian tag: lowercase letters, digits, "-",
// "_" and "/", starting with a letter; "" when nothing is left.
func tag(s string) string {
	s = strings.ToLower(oneLine(scrub(s)))
	s = strings.TrimLeft(s, "#")
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '/':
			b.WriteRune(r)
		case r == '-' || r == ' ':
			b.WriteByte('-')
		}
	}
	t := strings.Trim(b.String(), "-/")
	if t == "" || !unicode.IsLetter([]rune(t)[0]) || len(t) > 40 {
		return ""
	}
	return t
}

// partial is the callout's sentence when the cap stopped the reading.
func partial(read, total int, unread float64, page int, maxCalls, bad int, origin string) string {
	var b strings.Builder
	if read < total {
		fmt.Fprintf(&b, "The model read %d of %d parts of this source; the rest — about %d%% of the text", read, total, int(unread*100+0.5))
		if page > 0 {
			fmt.Fprintf(&b, ", from page %d on", page)
		}
		fmt.Fprintf(&b, " — was not read because the limit of %d model calls per source (ingest.max_calls) was reached.", maxCalls)
	}
	if bad > 0 {
		if b.Len() > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "The model's notes on %d part(s) were not usable and were left out.", bad)
	}
	b.WriteString(" To read it all, raise the limit and use *Summarise again* here or the command *Quire: Summarise this source again* (on a command line: `quire ingest --resummarise " + shellQuote(origin) + "`).")
	return b.String()
}

// demote moves the source's headings two levels down (at most to level
// six), outside code blocks, so they sit under the note's "## Text" and
// never pass for one of its own sections.
func demote(md string) string {
	return markdown.MapLines(md, func(l string) string {
		n := 0
		for n < len(l) && l[n] == '#' {
			n++
		}
		if n >= 1 && n <= 6 && (n == len(l) || l[n] == ' ') {
			return strings.Repeat("#", min(n+2, 6)) + l[n:]
		}
		return l
	})
}
