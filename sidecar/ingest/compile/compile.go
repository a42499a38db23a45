// Package compile turns one extracted source into notes in the vault: a
// source note (summary, key ideas, glossary, quotes, connections), concept
// and entity pages created or extended, review items for what it will not
// decide alone, and the Quire/index.md and Quire/log.md entries. With a
// model it reads the source in chunks and plans the note; without one it
// writes the clean text, marked as not summarised. Every claim the model
// makes is checked against the source before it is written, and nothing
// outside the generated folder is ever touched.
package compile

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/vault"
)

// Model answers a chat; *llm.Client is one. JSON output is asked for with
// llm.Options.
type Model interface {
	Stream(ctx context.Context, msgs []llm.Message, opts llm.Options, onDelta func(string)) (llm.Reply, error)
	Config() llm.Config
}

// Page is an existing vault page that search found related to the source.
type Page struct {
	Path     string   // vault-relative note path
	Title    string   // the note's title
	Headings []string // heading path of the best passage, outermost first
	Snippet  string   // the best passage's text, short
	Score    float64  // search score, higher is closer
}

// Related finds existing pages for a query: at most k, none that leave
// names, which are left out before the cut to k (so that k pages come
// back whenever k others match).
type Related func(ctx context.Context, query string, k int, leave Leave) ([]Page, error)

// Leave is what a search for related pages leaves out: the notes under
// Folders (vault-relative, "Quire/Review/") and the Notes named
// (vault-relative paths).
type Leave struct {
	Folders, Notes []string
}

// heading is the page's heading path as the model and the note read it:
// "H1 > H2".
func (p Page) heading() string { return strings.Join(p.Headings, " > ") }

// Source is one extracted source ready to compile.
type Source struct {
	Doc      *extract.Doc // the extracted text and metadata; PDF figures already saved (Doc.MoveImage)
	Origin   string       // the URL or file as given (frontmatter "source")
	Raw      string       // vault-relative path of the saved original, "" if none
	Hash     string       // extract.TextHash(Doc) (frontmatter "content_hash"); "" computes it. A rerun finds its note by it.
	Captured time.Time    // when it was captured (frontmatter "captured"); zero means now
	// Rebuild names, vault-relative, the source note this compile rebuilds
	// in the current layout (see rebuild.go); "" for an ingest.
	Rebuild string
}

// Options say where and how to compile.
type Options struct {
	// Vault is the vault's folder; Folder is the generated folder inside it
	// ("Quire", config.Folder). Writes go only under Folder: Sources/,
	// Concepts/, Entities/, Review/, Log/, index.md and log.md. Folder must be
	// relative, not a dot folder and not "..".
	Vault, Folder string
	// Model reads and plans; nil writes the unsummarised note. Its
	// Config().ContextTokens sizes the chunks and prompts (0 means
	// DefaultContextTokens).
	Model Model
	// Related finds existing pages for a query (the search channel): at
	// most k, none of those leave names, which go before the cut to k.
	// nil means no connections. An error is written in the note, not
	// returned.
	Related Related
	// Exists reports whether a vault-relative note path (or a page title a
	// wikilink may name) is a page the vault has; links to anything else
	// are dropped. nil means only related pages and the pages this compile
	// creates resolve.
	Exists func(target string) bool
	// Private holds the notes that never reach a remote model
	// (llm.Config.Local false): their pages are not shown to it, and no
	// generated note quotes them (a later ask would send the quote on). A
	// source file that is one (PrivateSource) is not sent to a remote
	// model either, and stays private in what is made from it.
	Private vault.Private
	// LocalRelated is Related by channels that keep the query on this
	// machine, for a private source's search; nil means no connections
	// for one.
	LocalRelated Related
	// MaxCalls caps model calls for this source (reading, merging and
	// planning; config ingest.max_calls). 0 means DefaultMaxCalls; below 2
	// counts as 2 (one read, one plan).
	MaxCalls int
	// MaxNoteBytes caps the size of a source note (config max_file_bytes,
	// so the indexer reads it): the clean text of an unsummarised note is
	// cut to fit and the note says so. 0 means DefaultMaxNoteBytes.
	MaxNoteBytes int64
	// LogEntries is how many entries log.md keeps before its oldest half
	// moves to an archive note under Log/ (only while log.md is as Quire
	// last wrote it). 0 means DefaultLogEntries.
	LogEntries int
	// Consolidate is how many concept pages a compile may summarise
	// (consolidate.go; config ingest.consolidate): 0, the default, none.
	Consolidate int
	// ConsolidateSources is how many sources a concept page needs to be
	// summarised; 0 means DefaultConsolidateSources.
	ConsolidateSources int
	// Progress reports the step and, for reading, chunk i of n. May be nil.
	Progress func(step ingest.Step, i, n int)
	// Written is told of every note written, as it is written. May be nil.
	Written func(ingest.Written)
	// Reviewed is told of every review item written. May be nil.
	Reviewed func(ingest.Reviewed)
}

// DefaultMaxNoteBytes is config's default max_file_bytes.
const DefaultMaxNoteBytes = 5 << 20

// Result is what Compile wrote.
type Result struct {
	Note       string           // the source note, vault-relative
	Title      string           // its title
	Written    []string         // every note created or extended, Note first
	Review     []string         // review items created
	Dropped    []ingest.Dropped // what the trust checks removed
	Summarised bool             // false when no model read the source
	Unread     float64          // share of the source not read (call cap)
	// Reason says why the source was not summarised ("no model is
	// configured", "the model did not answer: …"); "" when it was.
	Reason string
	// Calls counts the model calls made, and InputTokens and
	// OutputTokens their tokens as the server counted them.
	Calls                     int
	InputTokens, OutputTokens int
	// Model names the model configured for the compile, "" for none.
	Model string
	// Summary is the note's checked summary, and Quotes and Terms count
	// the quotes and glossary terms that passed the checks (Dropped
	// counts those that did not); all empty when not summarised.
	Summary       string
	Quotes, Terms int
	// Kept says the source note already had a summary and this run none
	// (no model, or it failed): the note was left as it was.
	Kept bool
}

// Compile writes the notes for src. It is safe to run again for the same
// source after a crash: the source note is written last, atomically, and
// a rerun overwrites nothing the user wrote and adds no section twice.
//
// The model's reading is cancelled with ctx, and then nothing is written.
// Once writing has begun, a cancelled ctx stops Compile between notes:
// the note being written is finished, and the error is ctx's.
//
// A model that fails (unreachable, timing out, answering nonsense) does
// not fail Compile: the source note is written unsummarised and
// Result.Reason says why. Errors are for the vault (a folder that cannot
// be written) and for ctx.
func Compile(ctx context.Context, src Source, opt Options) (Result, error) {
	res, err := compile(ctx, src, opt)
	if err != nil {
		name := src.Origin
		if name == "" && src.Doc != nil {
			name = src.Doc.Title
		}
		return res, fmt.Errorf("compile %s: %w", name, err)
	}
	return res, nil
}

// compiler holds one compile's state.
type compiler struct {
	src       Source
	opt       Options
	dir       *folder
	captured  time.Time
	hash12    string
	check     *checker
	created   map[string]string // folded concept/entity name → vault path
	related   []Page
	existing  string // the source note already written for this hash, folder-relative
	searchErr string // why no related pages could be found, for the note
	// privateSrc: the source is a private note (PrivateSource), and what
	// is made from it is private too.
	privateSrc bool
	// rebuild is set when the compile rebuilds a note (Source.Rebuild).
	rebuild *rebuilding
	res     Result
}

func compile(ctx context.Context, src Source, opt Options) (Result, error) {
	if src.Doc == nil {
		return Result{}, errors.New("no document")
	}
	if src.Hash == "" {
		src.Hash = extract.TextHash(src.Doc)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := CheckOwned(opt.Vault, opt.Folder); err != nil {
		return Result{}, err
	}
	dir, err := openFolder(opt.Vault, opt.Folder)
	if err != nil {
		return Result{}, err
	}
	defer dir.close()
	c := &compiler{src: src, opt: opt, dir: dir, captured: src.Captured, hash12: src.Hash[:min(12, len(src.Hash))],
		created: map[string]string{}, privateSrc: PrivateSource(opt.Private, opt.Vault, src.Origin)}
	if c.captured.IsZero() {
		c.captured = time.Now()
	}
	doc := src.Doc
	c.check = &checker{
		text:    fold(doc.Text),
		raw:     doc.Markdown + "\n" + doc.URL + "\n" + src.Origin,
		resolve: c.resolve,
	}
	for _, im := range doc.Images {
		if im.URL != "" {
			c.check.images = append(c.check.images, im.URL)
		}
		if im.Path != "" {
			c.check.images = append(c.check.images, im.Path)
		}
	}
	if src.Rebuild != "" {
		if err := c.startRebuild(); err != nil {
			return Result{}, err
		}
	} else if c.existing, err = c.findSource(); err != nil {
		return Result{}, err
	}

	if opt.Model != nil {
		c.res.Model = opt.Model.Config().Model
	}
	var d draft
	if opt.Model == nil {
		d = c.unsummarised(ctx, "No model is configured")
	} else if c.remote() && c.privateSrc {
		d = c.unsummarised(ctx, "The source lies in a private folder and the model is not on this machine")
	} else {
		d, err = c.summarise(ctx)
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		if err != nil {
			d = c.unsummarised(ctx, "The model did not answer ("+firstLine(err.Error())+")")
		}
	}
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	c.progress(ingest.StepWriting, 0, 0)
	if err := Adopt(opt.Vault, opt.Folder); err != nil {
		return Result{}, err
	}
	err = c.apply(ctx, d)
	c.res.Dropped = append(c.check.drops.list(), removed(src.Doc.Removed)...)
	return c.res, err
}

// counted adds a reader's calls and tokens to the result.
func (c *compiler) counted(r *reader) {
	c.res.Calls += r.calls
	c.res.InputTokens += r.in
	c.res.OutputTokens += r.out
}

func (c *compiler) progress(step ingest.Step, i, n int) {
	if c.opt.Progress != nil {
		c.opt.Progress(step, i, n)
	}
}

// findSource returns the source note already written for this content
// hash, if any, folder-relative.
func (c *compiler) findSource() (string, error) {
	names, err := c.dir.list("Sources")
	if err != nil {
		return "", err
	}
	for _, n := range names {
		b, err := c.dir.read(n)
		if err != nil {
			return "", err
		}
		if m, _, ok := parsePage(b); ok && m.ContentHash == c.src.Hash && m.Kind == "source" {
			return n, nil
		}
	}
	return "", nil
}

// window is the model's context in tokens.
func (c *compiler) window() int {
	if n := c.opt.Model.Config().ContextTokens; n > 0 {
		return n
	}
	return DefaultContextTokens
}

// summarise reads the source with the model and plans the note; the draft
// it returns has passed every check.
func (c *compiler) summarise(ctx context.Context) (draft, error) {
	doc := c.src.Doc
	maxCalls := c.opt.MaxCalls
	if maxCalls <= 0 {
		maxCalls = DefaultMaxCalls
	}
	maxCalls = max(maxCalls, 2)
	r := &reader{model: c.opt.Model, maxCalls: maxCalls, window: c.window(), progress: c.opt.Progress}
	defer c.counted(r)

	chunks := split(doc.Markdown, r.chunkTokens())
	if len(chunks) == 0 {
		return draft{}, errors.New("nothing to read")
	}
	sets, read, bad, err := r.readAll(ctx, doc.Title, chunks)
	if err != nil {
		return draft{}, err
	}
	if bad == read {
		return draft{}, errors.New("no usable notes in its replies")
	}
	total, unread := 0, 0
	for i, ch := range chunks {
		total += ch.tokens
		if i >= read {
			unread += ch.tokens
		}
	}
	badShare := 0.0
	if bad > 0 {
		badShare = float64(bad) / float64(len(chunks)) * float64(read) / float64(len(chunks))
	}
	merged, err := r.reduce(ctx, sets)
	if err != nil {
		return draft{}, err
	}

	query := doc.Title
	for _, p := range merged.Points[:min(3, len(merged.Points))] {
		query += "\n" + p
	}
	c.progress(ingest.StepLinking, 0, 0)
	if err := c.findRelated(ctx, query); err != nil {
		return draft{}, err
	}
	c.progress(ingest.StepPlanning, 0, 0)
	p, err := r.plan(ctx, c.metadata(), merged, c.related)
	if err != nil {
		return draft{}, err
	}

	d := c.checked(p, merged)
	c.res.Summary, c.res.Quotes, c.res.Terms = d.Summary, len(d.Quotes), len(d.Glossary)
	if c.privateSrc {
		// Concept and entity pages are shared by every source and would
		// carry the private text out; it stays in the source note, which
		// is marked private.
		d.Concepts, d.Entities, d.Conflicts = nil, nil, nil
	}
	d.SearchErr = c.searchErr
	d.Summarised = true
	d.Model = c.opt.Model.Config().Model
	if total > 0 {
		d.Unread = float64(unread)/float64(total) + badShare
	}
	if read < len(chunks) || bad > 0 {
		page := 0
		if read < len(chunks) {
			page = chunks[read].page
		}
		d.UnreadNote = partial(read, len(chunks), d.Unread, page, maxCalls, bad, c.src.Origin)
	}
	d.Checks = dropSentence(c.check.drops.list())
	c.res.Unread = d.Unread
	return d, nil
}

// metadata is what the plan is told about the source.
func (c *compiler) metadata() []string {
	doc := c.src.Doc
	meta := []string{"title: " + oneLine(doc.Title)}
	for _, kv := range [][2]string{{"author", doc.Author}, {"published", doc.Date}, {"site", doc.Site}, {"language", doc.Lang}} {
		if kv[1] != "" {
			meta = append(meta, kv[0]+": "+oneLine(kv[1]))
		}
	}
	return meta
}

// findRelated runs the search for existing pages (c.notPages left out).
// A failing search is not fatal: the note just has no connections.
func (c *compiler) findRelated(ctx context.Context, query string) error {
	related := c.opt.Related
	if c.privateSrc {
		// The query is the private source's text.
		related = c.opt.LocalRelated
	}
	if related == nil {
		return nil
	}
	pages, err := related(ctx, query, maxConnections, c.notPages())
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		c.searchErr = "Search for related pages failed (" + firstLine(err.Error()) + ")."
		return nil
	}
	for _, p := range pages {
		if c.opt.Private.Holds(p.Path) {
			if c.remote() {
				continue
			}
			// Linked, never quoted: a generated note is sent to remote
			// models like any other.
			p.Snippet, p.Headings = "", nil
		}
		if len(p.Snippet) > 600 {
			p.Snippet = p.Snippet[:600]
		}
		c.related = append(c.related, p)
	}
	return nil
}

// notPages is what the search for existing pages leaves out before its
// cut: Quire's own review items, log archives, index, log, lint report
// and daily view, and this source's note.
func (c *compiler) notPages() Leave {
	l := Leave{
		Folders: []string{c.dir.rel + "/Review/", c.dir.rel + "/" + logArchives + "/"},
		Notes:   []string{c.dir.vaultPath("index.md"), c.dir.vaultPath("log.md"), c.dir.vaultPath(LintNote), c.dir.vaultPath(TodayNote)},
	}
	if c.existing != "" {
		l.Notes = append(l.Notes, c.dir.vaultPath(c.existing))
	}
	return l
}

// remote reports whether the model sends what it is given off this machine.
func (c *compiler) remote() bool {
	return c.opt.Model != nil && !c.opt.Model.Config().Local()
}

// PrivateSource reports whether the source named origin (a URL or an
// absolute file path) is a private note of the vault at vaultDir, by its
// real path (vault.Private.HoldsFile).
func PrivateSource(p vault.Private, vaultDir, origin string) bool {
	return vaultDir != "" && origin != "" && !strings.Contains(origin, "://") && p.HoldsFile(vaultDir, origin)
}

// resolve finds the page a link names: a concept or entity this compile
// creates, a related page (by title or path), or any page the vault has.
func (c *compiler) resolve(target string) (string, bool) {
	t := strings.TrimSpace(target)
	if t == "" {
		return "", false
	}
	key := fold(t).s
	if p, ok := c.created[key]; ok {
		return p, true
	}
	for _, p := range c.related {
		if key == fold(p.Title).s || key == fold(p.Path).s || key == fold(strings.TrimSuffix(p.Path, ".md")).s {
			return p.Path, true
		}
	}
	if c.opt.Exists != nil && c.opt.Exists(t) {
		return t, true
	}
	return "", false
}

// checked turns the plan and notes into a draft, dropping what fails a
// check.
func (c *compiler) checked(p plan, n notes) draft {
	ck := c.check
	d := draft{}
	seen := map[string]bool{}
	once := func(kind, name string) bool {
		k := kind + "\x00" + fold(name).s
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	for _, cp := range p.Concepts {
		name, ok := ck.named("concept", cp.Name)
		name = c.preferModel(name, cp.Name)
		if !ok || !once("c", name) {
			continue
		}
		it := item{Name: name, Kind: "concept", Description: cp.Description, Path: c.dir.vaultPath("Concepts/" + noteName(name) + ".md")}
		c.created[fold(name).s] = it.Path
		d.Concepts = append(d.Concepts, it)
	}
	ents := p.Entities
	if len(ents) == 0 {
		ents = n.Entities
	}
	for _, e := range ents[:min(len(ents), maxPlanEnts)] {
		name, ok := ck.named("entity", e.Name)
		name = c.preferModel(name, e.Name)
		if !ok || !once("e", name) {
			continue
		}
		it := item{Name: name, Kind: entityKind(e.Kind), Description: e.Description, Path: c.dir.vaultPath("Entities/" + noteName(name) + ".md")}
		if _, taken := c.created[fold(name).s]; !taken {
			c.created[fold(name).s] = it.Path
		}
		d.Entities = append(d.Entities, it)
	}
	// Descriptions may link the pages just named, so they are checked
	// once every page is known.
	for i := range d.Concepts {
		d.Concepts[i].Description = ck.prose(d.Concepts[i].Description, true)
	}
	for i := range d.Entities {
		d.Entities[i].Description = ck.prose(d.Entities[i].Description, false)
	}

	d.Title = c.title(p.Title)
	d.OneLiner = ck.prose(p.OneLiner, false)
	d.Summary = ck.prose(p.Summary, true)
	for _, k := range p.KeyIdeas {
		if k = ck.prose(k, false); k != "" {
			d.KeyIdeas = append(d.KeyIdeas, k)
		}
	}
	for _, t := range n.Terms {
		name, ok := ck.named("term", t.Term)
		if !ok || !once("t", name) || len(d.Glossary) == maxMergedTerms {
			continue
		}
		d.Glossary = append(d.Glossary, term{Term: escapeText(name), Definition: ck.prose(t.Definition, false)})
	}
	for _, q := range n.Quotes {
		got, ok := ck.quote(q)
		if !ok || !once("q", got) || len(d.Quotes) == maxMergedQuotes {
			continue
		}
		d.Quotes = append(d.Quotes, got)
	}
	for _, t := range p.Tags {
		if t = tag(t); t != "" && !slices.Contains(d.Tags, t) {
			d.Tags = append(d.Tags, t)
		}
	}
	for _, cn := range p.Connections {
		path, ok := c.resolve(oneLine(scrub(cn.Page)))
		if !ok {
			ck.drops.add("link")
			continue
		}
		if !once("l", path) || c.isCreated(path) {
			continue
		}
		d.Connections = append(d.Connections, link{Path: path, Label: c.label(path), Reason: ck.prose(cn.Reason, false)})
	}
	if len(d.Connections) == 0 {
		d.Connections = c.searchConnections()
	}
	for _, x := range p.Contradictions {
		path, ok := c.resolve(oneLine(scrub(x.Page)))
		if !ok {
			ck.drops.add("link")
			continue
		}
		cf := conflict{Page: link{Path: path, Label: c.label(path)}, Claim: ck.prose(x.Claim, false),
			Explanation: ck.prose(x.Explanation, false)}
		for _, r := range c.related {
			if r.Path == path {
				cf.Snippet = r.Snippet
			}
		}
		d.Conflicts = append(d.Conflicts, cf)
	}
	return d
}

// preferModel picks, between the source's wording of a name and the
// model's, the model's when they differ only in case (it capitalises a
// page title the source wrote mid-sentence), else the source's.
func (c *compiler) preferModel(source, model string) string {
	m := oneLine(scrub(model))
	if strings.EqualFold(m, source) {
		return m
	}
	return source
}

func (c *compiler) isCreated(path string) bool {
	for _, p := range c.created {
		if p == path {
			return true
		}
	}
	return false
}

// label is how a link to path reads: the related page's title, else the
// file name.
func (c *compiler) label(p string) string {
	for _, r := range c.related {
		if r.Path == p && r.Title != "" {
			return r.Title
		}
	}
	return strings.TrimSuffix(path.Base(p), ".md")
}

// searchConnections lists the related pages search found, each with the
// heading of the passage that matched as its reason (or the passage's
// opening words when it has no heading): the connections of a note no
// model planned. Pages scoring under a third of the best are left out, so
// a small vault does not list every note as related.
func (c *compiler) searchConnections() []link {
	var out []link
	seen := map[string]bool{}
	best := 0.0
	for _, r := range c.related {
		best = max(best, r.Score)
	}
	for _, r := range c.related {
		if seen[r.Path] || len(out) == 5 || r.Score < best/3 {
			continue
		}
		seen[r.Path] = true
		reason := ""
		if h := oneLine(r.heading()); h != "" {
			reason = "matched in “" + plain(h) + "”"
		} else if w := openingWords(r.Snippet, 12); w != "" {
			reason = "similar passage: “" + plain(w) + "”"
		}
		out = append(out, link{Path: r.Path, Label: c.label(r.Path), Reason: reason})
	}
	return out
}

// openingWords is the first n words of a passage's prose, after its
// heading lines, with "…" when cut.
func openingWords(md string, n int) string {
	_, body, _, _ := vault.SplitFrontmatter([]byte(md))
	var words []string
	for _, line := range strings.Split(string(body), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words = append(words, strings.Fields(line)...)
		if len(words) > n {
			return strings.Join(words[:n], " ") + "…"
		}
	}
	return strings.Join(words, " ")
}

// title is the note's title: the document's own, unless it only came
// from the file name, when the model's (checked) is better; a rebuilt
// note's own.
func (c *compiler) title(model string) string {
	if c.rebuild != nil && c.rebuild.title != "" {
		return c.rebuild.title // links to the note name it by it
	}
	t := oneLine(c.src.Doc.Title)
	base := path.Base(strings.ReplaceAll(c.src.Origin, `\`, "/"))
	fromName := t == "" || t == "Untitled" || t == base || t == strings.TrimSuffix(base, path.Ext(base))
	if m := oneLine(scrub(model)); fromName && m != "" {
		t = m
	}
	if t == "" {
		t = "Untitled"
	}
	return t
}

// unsummarised is the draft without a model: the clean text (rendered by
// renderSource) and the related pages search finds.
func (c *compiler) unsummarised(ctx context.Context, reason string) draft {
	doc := c.src.Doc
	query := doc.Title + "\n" + doc.Text[:min(len(doc.Text), 600)]
	c.progress(ingest.StepLinking, 0, 0)
	c.findRelated(ctx, query)
	c.res.Reason = reason
	return draft{Title: c.title(""), Reason: reason, Connections: c.searchConnections(), SearchErr: c.searchErr}
}

func entityKind(k string) string {
	k = strings.ToLower(oneLine(scrub(k)))
	switch k {
	case "person", "organization", "place", "product", "work":
		return k
	case "organisation", "company", "org":
		return "organization"
	}
	return "other"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// removed turns what extraction left out into Dropped counts.
func removed(r extract.Removed) []ingest.Dropped {
	var out []ingest.Dropped
	if r.LocalImages > 0 {
		out = append(out, ingest.Dropped{What: "image", Count: r.LocalImages, Reason: "on a private or local address"})
	}
	if r.LocalLinks > 0 {
		out = append(out, ingest.Dropped{What: "url", Count: r.LocalLinks, Reason: "on a private or local address"})
	}
	if r.OverImages > 0 {
		out = append(out, ingest.Dropped{What: "image", Count: r.OverImages, Reason: "past " + strconv.Itoa(extract.MaxImages) + " per note"})
	}
	return out
}
