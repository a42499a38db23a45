package compile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/vault"
)

// Lint: deterministic checks over the notes Quire wrote, with no model.
// It reads the generated folder and the names of the vault's files, and
// writes only two kinds of file, both its own: the report LintNote,
// regenerated while it is as Quire last wrote it, and review items for
// what needs the user's decision, each written once. Nothing else is
// changed, whatever it finds.

// Lint checks, the Defect.Check values.
const (
	LintLink      = "broken-link" // a link in a generated note resolves to no file
	LintOrphan    = "orphan"      // a concept or entity page no source note cites
	LintDuplicate = "duplicate"   // two concept (or entity) pages name the same thing
	LintRaw       = "missing-raw" // a source note's original is not in raw/
	LintFront     = "frontmatter" // a note in the folder whose frontmatter Quire cannot read
	LintIndex     = "index"       // index.md and the source notes disagree
	LintSize      = "oversize"    // a page longer than a model reads whole
	LintLayout    = "old-layout"  // a source note written in an older layout than Format
)

// LintNote is the report, in the generated folder.
const LintNote = "Lint.md"

// LintOptions say what to lint.
type LintOptions struct {
	// Vault is the vault's folder; Folder the generated folder in it.
	Vault, Folder string
	// MaxTokens is the size past which a concept or entity page is more
	// than a model reads whole (its context window); 0 means
	// DefaultContextTokens.
	MaxTokens int
	// Write writes the report and the review items; false only looks.
	Write bool
	// Now dates the report; zero means now.
	Now time.Time
	// Reviewed is told of every review item written. May be nil.
	Reviewed func(ingest.Reviewed)
}

// Defect is one thing lint found.
type Defect struct {
	Check  string `json:"check"`            // one of the Lint* constants
	Note   string `json:"note"`             // the note at fault, vault-relative
	Detail string `json:"detail"`           // what is wrong, in a sentence
	Target string `json:"target,omitempty"` // the link that resolves to nothing, or the other page of a duplicate
	// Review is the review item about it (written by this run or an
	// earlier one), "" for a defect the report only lists.
	Review string `json:"review,omitempty"`
	// private: the note is a private one; the report counts it without
	// naming it.
	private bool
}

// LintResult is what a lint found and wrote.
type LintResult struct {
	Notes   int      `json:"notes"`   // notes of the folder looked at
	Defects []Defect `json:"defects"` // in a stable order: by check, then note
	// Report is the report's vault path when it was written (or already
	// said the same), "" when not (Write false, or the user edited it).
	Report string `json:"report,omitempty"`
	// Review lists the review items this run created.
	Review []string `json:"review"`
	// Warning says why the report was not written, if it was not.
	Warning string `json:"warning,omitempty"`
}

// linted is one note of the generated folder, as lint read it.
type linted struct {
	rel   string // folder-relative
	raw   []byte
	note  *vault.Note // nil when not text
	meta  pageMeta
	front bool   // frontmatter read
	bad   string // why the frontmatter cannot be read, "" when it can
	// hash is a source note's content hash, read from its frontmatter's
	// line even when the rest of it does not parse: its concept pages are
	// not orphans for a typo in its tags.
	hash string
}

func (l *linted) title() string {
	if l.rel == "index.md" {
		return "index.md"
	}
	if l.note != nil && l.note.Title != "" {
		return l.note.Title
	}
	return strings.TrimSuffix(path.Base(l.rel), ".md")
}

// Lint runs every check over the generated folder of opt.Vault. A folder
// that does not exist has nothing to check; one that is not Quire's
// (CheckOwned) is refused, untouched.
func Lint(opt LintOptions) (LintResult, error) {
	res := LintResult{Defects: []Defect{}, Review: []string{}}
	if err := CheckOwned(opt.Vault, opt.Folder); err != nil {
		return res, err
	}
	rel := strings.Trim(filepath.ToSlash(opt.Folder), "/")
	if st, err := os.Stat(filepath.Join(opt.Vault, filepath.FromSlash(rel))); err != nil || !st.IsDir() {
		return res, nil
	}
	dir, err := openFolder(opt.Vault, opt.Folder)
	if err != nil {
		return res, err
	}
	defer dir.close()
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	if opt.MaxTokens <= 0 {
		opt.MaxTokens = DefaultContextTokens
	}
	l := &linter{opt: opt, dir: dir}
	if err := l.read(); err != nil {
		return res, err
	}
	if l.files, err = vaultFiles(opt.Vault); err != nil {
		return res, err
	}
	l.frontmatter()
	l.links()
	l.orphans()
	l.duplicates()
	l.originals()
	l.index()
	l.sizes()
	l.layouts()
	slices.SortStableFunc(l.defects, func(a, b Defect) int {
		return strings.Compare(a.Check+"\x00"+a.Note+"\x00"+a.Target, b.Check+"\x00"+b.Note+"\x00"+b.Target)
	})
	res.Notes = len(l.notes)
	l.existingReview()
	if opt.Write {
		if err := l.writeReview(); err != nil {
			return res, err
		}
		res.Report, res.Warning, err = l.writeReport()
		if err != nil {
			return res, err
		}
	}
	res.Defects = append(res.Defects, l.defects...)
	res.Review = append(res.Review, l.created...)
	return res, nil
}

type linter struct {
	opt     LintOptions
	dir     *folder
	notes   []*linted
	index_  *linted
	files   map[string]bool // lower-case targets a link may name
	defects []Defect
	created []string // review items written
}

// lintFolders are the folders of generated notes lint reads.
var lintFolders = []string{"Sources", "Concepts", "Entities"}

func (l *linter) read() error {
	var names []string
	for _, d := range lintFolders {
		ns, err := l.dir.list(d)
		if err != nil {
			return err
		}
		names = append(names, ns...)
	}
	if b, err := l.dir.read("index.md"); err != nil {
		return err
	} else if b != nil {
		names = append(names, "index.md")
	}
	for _, n := range names {
		b, err := l.dir.read(n)
		if err != nil {
			return err
		}
		ln := &linted{rel: n, raw: b}
		ln.note, err = vault.Parse(l.dir.vaultPath(n), b)
		switch {
		case err != nil:
			ln.bad = "is not text Quire can read (" + err.Error() + ")"
			ln.note = nil
		case ln.note.Warning != "":
			ln.bad = "has frontmatter that does not parse (" + strings.TrimPrefix(ln.note.Warning, "frontmatter ignored: ") + ")"
		case ln.note.BodyStart == 0:
			ln.bad = "has no frontmatter, so Quire cannot tell what it is"
		default:
			ln.meta, _, ln.front = parsePage(b)
			if !ln.front {
				ln.bad = "has frontmatter Quire cannot read"
			}
		}
		if ln.front && ln.meta.Quire == Marker && ln.meta.Kind == "source" {
			ln.hash = ln.meta.ContentHash
		} else if m := hashField.FindSubmatch(b); m != nil && strings.HasPrefix(n, "Sources/") {
			ln.hash = string(m[1])
		}
		if n == "index.md" {
			l.index_ = ln
		}
		l.notes = append(l.notes, ln)
	}
	return nil
}

func (l *linter) add(d Defect) { l.defects = append(l.defects, d) }

func (l *linter) frontmatter() {
	for _, n := range l.notes {
		if n.bad != "" {
			l.add(Defect{Check: LintFront, Note: l.dir.vaultPath(n.rel), Detail: n.title() + " " + n.bad + "."})
		}
	}
}

// generated reports whether n says Quire wrote it (edited since or not).
func (n *linted) generated() bool { return n.front && n.meta.Quire == Marker }

// private reports whether n is a private note's (vault.Note.Private).
func (n *linted) private() bool { return n.note != nil && n.note.Private }

// vaultFiles lists what a link may name: every file of the vault outside
// dot folders, by its path (with and without .md) and by every ending of
// it at a slash, lower-cased, as Obsidian resolves [[Name]] and
// [[Folder/Name]] wherever the file lies.
func vaultFiles(root string) (map[string]bool, error) {
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = strings.ToLower(filepath.ToSlash(rel))
		for {
			out[rel] = true
			out[strings.TrimSuffix(rel, ".md")] = true
			i := strings.IndexByte(rel, '/')
			if i < 0 {
				break
			}
			rel = rel[i+1:]
		}
		return nil
	})
	return out, err
}

// wikiLink is a wikilink or an embed; group 1 is what is inside.
var wikiLink = regexp.MustCompile(`\[\[([^\[\]\n]+)\]\]`)

// linkTargets lists the distinct files the wikilinks of a note's body
// name, as written (before "|", "#" or "^"), outside code.
func linkTargets(body string) []string {
	var out []string
	for _, m := range wikiLink.FindAllStringSubmatch(stripCode(body), -1) {
		t := m[1]
		if i := strings.IndexAny(t, "|#^"); i >= 0 {
			t = t[:i]
		}
		t = strings.TrimSpace(t)
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// stripCode blanks fenced code blocks and inline code, where [[…]] is no
// link.
func stripCode(md string) string {
	var b strings.Builder
	var fence markdown.Fence
	for _, line := range strings.SplitAfter(md, "\n") {
		if fence.Line(line) {
			b.WriteString("\n")
			continue
		}
		b.WriteString(inlineCode.ReplaceAllString(line, "``"))
	}
	return b.String()
}

var inlineCode = regexp.MustCompile("`[^`\n]*`")

func (l *linter) resolves(target string) bool {
	t := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(target), "/"))
	return l.files[t] || l.files[strings.TrimSuffix(t, ".md")]
}

// links finds the links of generated notes that name no file: a page the
// user renamed, moved or deleted.
func (l *linter) links() {
	for _, n := range l.notes {
		if n.note == nil || !n.generated() {
			continue
		}
		for _, t := range linkTargets(string(n.note.Body())) {
			if n.meta.Raw != "" && strings.EqualFold(t, n.meta.Raw) {
				continue // the missing original is the originals check's
			}
			if !l.resolves(t) {
				l.add(Defect{Check: LintLink, Note: l.dir.vaultPath(n.rel), Target: t, private: n.private(),
					Detail: n.title() + " links to “" + t + "”, which no note or file of the vault is (renamed, moved or deleted?)."})
			}
		}
	}
}

// hashField is a source note's content_hash line.
var hashField = regexp.MustCompile(`(?m)^content_hash: ?"?([0-9a-f]{12,})"?\r?$`)

// sources returns the source notes, by the first 12 characters of their
// content hash (the mark concept pages and index.md keep).
func (l *linter) sources() map[string]*linted {
	out := map[string]*linted{}
	for _, n := range l.notes {
		if n.hash != "" {
			out[n.hash[:min(12, len(n.hash))]] = n
		}
	}
	return out
}

// orphans finds concept and entity pages none of whose sources has a
// source note any more.
func (l *linter) orphans() {
	src := l.sources()
	for _, n := range l.notes {
		if !n.generated() || (n.meta.Kind != "concept" && n.meta.Kind != "entity") {
			continue
		}
		cited := false
		for _, h := range n.meta.Sources {
			if src[h] != nil {
				cited = true
			}
		}
		if !cited {
			l.add(Defect{Check: LintOrphan, Note: l.dir.vaultPath(n.rel),
				Detail: "No source note cites the " + n.meta.Kind + " page " + n.title() + " any more (its sources were deleted)."})
		}
	}
}

// duplicates finds two pages of one kind that name the same thing: the
// same name or alias once case, accents and punctuation are set aside, a
// name in brackets ("Retrieval-augmented generation (RAG)"), or one
// page's name the acronym of the other's, in either letter order (NLP and
// PLN, AI and IA: languages put the adjective on either side).
func (l *linter) duplicates() {
	type page struct {
		n              *linted
		names, acronym []string
	}
	byKind := map[string][]page{}
	for _, n := range l.notes {
		if !n.generated() || (n.meta.Kind != "concept" && n.meta.Kind != "entity") || n.note == nil {
			continue
		}
		p := page{n: n}
		for _, name := range append([]string{n.title(), strings.TrimSuffix(path.Base(n.rel), ".md")}, n.note.Aliases...) {
			for _, k := range nameKeys(name) {
				if !slices.Contains(p.names, k) {
					p.names = append(p.names, k)
				}
			}
			for _, a := range acronyms(name) {
				if !slices.Contains(p.acronym, a) {
					p.acronym = append(p.acronym, a)
				}
			}
		}
		byKind[n.meta.Kind] = append(byKind[n.meta.Kind], p)
	}
	for _, kind := range []string{"concept", "entity"} {
		ps := byKind[kind]
		named := map[string][]int{} // name key → pages
		for i, p := range ps {
			for _, k := range p.names {
				named[k] = append(named[k], i)
			}
		}
		why := map[[2]int]string{}
		pair := func(i, j int, reason string) {
			if i == j {
				return
			}
			k := [2]int{min(i, j), max(i, j)}
			if _, ok := why[k]; !ok {
				why[k] = reason
			}
		}
		for i, p := range ps {
			for _, k := range p.names {
				for _, j := range named[k] {
					pair(i, j, "the same name once case, accents and punctuation are set aside")
				}
			}
		}
		for i, p := range ps {
			for _, a := range p.acronym {
				for _, j := range named[a] {
					pair(i, j, "“"+ps[j].n.title()+"” is the acronym of “"+p.n.title()+"”")
				}
			}
		}
		for k, reason := range why {
			a, b := ps[k[0]].n, ps[k[1]].n
			l.add(Defect{Check: LintDuplicate, Note: l.dir.vaultPath(a.rel), Target: l.dir.vaultPath(b.rel),
				Detail: "The " + kind + " pages " + a.title() + " and " + b.title() + " seem to name the same thing: " + reason + "."})
		}
	}
}

// nameKeys are the forms of a name two pages share when they name the same
// thing: folded (case, accents, punctuation and spacing aside), and, for
// "Name (ABBR)", both Name and ABBR.
func nameKeys(name string) []string {
	var out []string
	add := func(s string) {
		if k := nameKey(s); k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	add(name)
	if i := strings.IndexByte(name, '('); i > 0 {
		if j := strings.IndexByte(name[i:], ')'); j > 0 {
			add(name[:i])
			add(name[i+1 : i+j])
		}
	}
	return out
}

func nameKey(s string) string {
	f := fold(s).s
	return strings.Join(strings.FieldsFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
}

// minorWords are the little words an acronym skips, in the languages
// Quire stems: "Procesamiento de Lenguaje Natural" is PLN.
var minorWords = map[string]bool{
	"of": true, "the": true, "and": true, "for": true, "in": true, "on": true, "to": true, "a": true, "an": true,
	"de": true, "del": true, "la": true, "el": true, "los": true, "las": true, "y": true, "e": true, "en": true, "para": true,
	"di": true, "della": true, "delle": true, "dei": true, "il": true, "lo": true, "le": true, "per": true, "ed": true,
	"a.": true, "o": true, "u": true, "v": true, "ve": true, "na": true, "pro": true, "z": true,
}

// acronyms are a name's initials and the same reversed, for a name of
// at least two words; none otherwise.
func acronyms(name string) []string {
	if i := strings.IndexByte(name, '('); i > 0 {
		name = name[:i]
	}
	var initials []rune
	for _, w := range strings.Fields(nameKey(name)) {
		if minorWords[w] {
			continue
		}
		initials = append(initials, []rune(w)[0])
	}
	if len(initials) < 2 {
		return nil
	}
	fwd := string(initials)
	slices.Reverse(initials)
	if rev := string(initials); rev != fwd {
		return []string{fwd, rev}
	}
	return []string{fwd}
}

// originals finds source notes whose original (raw:) is gone.
func (l *linter) originals() {
	for _, n := range l.notes {
		if !n.generated() || n.meta.Kind != "source" || n.meta.Raw == "" {
			continue
		}
		p := filepath.FromSlash(n.meta.Raw)
		if !filepath.IsLocal(p) {
			l.add(Defect{Check: LintRaw, Note: l.dir.vaultPath(n.rel), Target: n.meta.Raw, private: n.private(),
				Detail: n.title() + " names its original as “" + n.meta.Raw + "”, which is not a path inside the vault."})
			continue
		}
		if st, err := os.Lstat(filepath.Join(l.opt.Vault, p)); err != nil || !st.Mode().IsRegular() {
			l.add(Defect{Check: LintRaw, Note: l.dir.vaultPath(n.rel), Target: n.meta.Raw, private: n.private(),
				Detail: "The original of " + n.title() + " (" + n.meta.Raw + ") is missing, so Quire cannot check the note against it or rebuild it."})
		}
	}
}

// indexMark is the mark index.md's lines carry, with the source's hash.
var indexMark = regexp.MustCompile(`%%quire:([0-9a-f]+)%%`)

// index compares index.md with the source notes: each source note (but a
// private one, which index.md never names) has a line, and each line a
// source note.
func (l *linter) index() {
	src := l.sources()
	listed := map[string]bool{}
	at := l.dir.vaultPath("index.md")
	if l.index_ != nil && l.index_.note != nil {
		for _, line := range strings.Split(string(l.index_.note.Body()), "\n") {
			m := indexMark.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			listed[m[1]] = true
			if src[m[1]] == nil {
				label := m[1]
				if lk := wikiLink.FindStringSubmatch(line); lk != nil {
					_, label, _ = strings.Cut(lk[1], "|")
					if label == "" {
						label = path.Base(lk[1])
					}
				}
				l.add(Defect{Check: LintIndex, Note: at, Target: m[1],
					Detail: "index.md lists a source whose note is gone: " + label + "."})
			}
		}
	}
	for h, n := range src {
		if !listed[h] && !n.private() {
			l.add(Defect{Check: LintIndex, Note: at, Target: l.dir.vaultPath(n.rel),
				Detail: "index.md has no line for the source " + n.title() + "."})
		}
	}
}

// sizes finds concept and entity pages longer than a model reads whole.
func (l *linter) sizes() {
	for _, n := range l.notes {
		if !n.generated() || (n.meta.Kind != "concept" && n.meta.Kind != "entity") || n.note == nil {
			continue
		}
		if t := markdown.CountTokens(string(n.note.Body())); t > l.opt.MaxTokens {
			l.add(Defect{Check: LintSize, Note: l.dir.vaultPath(n.rel),
				Detail: fmt.Sprintf("%s is about %d tokens long, more than the model's context of %d: no model can read it whole.", n.title(), t, l.opt.MaxTokens)})
		}
	}
}

// layouts finds the source notes Quire wrote in an older layout: `quire
// reingest` rebuilds them.
func (l *linter) layouts() {
	for _, n := range l.notes {
		if n.generated() && n.meta.Kind == "source" && n.meta.Format < Format {
			l.add(Defect{Check: LintLayout, Note: l.dir.vaultPath(n.rel), private: n.private(),
				Detail: fmt.Sprintf("%s is in Quire's note layout %d, older than this release's %d: `quire reingest` rebuilds it from its original.", n.title(), n.meta.Format, Format)})
		}
	}
}

// lintReview is, per check, whether it needs a decision (a review item)
// and what the item says to do.
var lintReview = map[string]string{
	LintLink:      "Point the link at the page's new name, or remove it. Quire does not change a note to mend it.",
	LintOrphan:    "Delete the page if it is no longer wanted, or keep it: Quire leaves it as it is.",
	LintDuplicate: "Merge the two pages by hand (and keep one name as an alias of the other), or leave them if they differ.",
	LintRaw:       "Put the original back in its place, or ingest the source again. Without it the note cannot be rebuilt.",
	LintFront:     "Mend the frontmatter (between the two --- lines) so that it is valid YAML again; until then Quire treats the note as one it did not write.",
}

// reviewName is where the review item about d goes, folder-relative.
func reviewName(d Defect) string {
	name := "Review/Lint — " + noteName(strings.TrimSuffix(path.Base(d.Note), ".md"))
	switch d.Check {
	case LintLink:
		name += " links to " + noteName(path.Base(d.Target))
	case LintDuplicate:
		name += " and " + noteName(strings.TrimSuffix(path.Base(d.Target), ".md"))
	default:
		name += " — " + d.Check
	}
	return clipName(name) + ".md"
}

// existingReview points each defect that needs a decision at its review
// item when an earlier run wrote it.
func (l *linter) existingReview() {
	for i := range l.defects {
		d := &l.defects[i]
		if _, ok := lintReview[d.Check]; !ok {
			continue
		}
		if b, err := l.dir.read(reviewName(*d)); err == nil && b != nil {
			d.Review = l.dir.vaultPath(reviewName(*d))
		}
	}
}

// writeReview writes a review item, once, for each defect that needs a
// decision; a rerun finds it there and leaves it.
func (l *linter) writeReview() error {
	for i := range l.defects {
		d := &l.defects[i]
		todo, ok := lintReview[d.Check]
		if !ok {
			continue
		}
		name := reviewName(*d)
		body := escapeText(d.Detail) + "\n\n" + todo + "\n\nNote: " + wikilink(d.Note, strings.TrimSuffix(path.Base(d.Note), ".md")) + "\n"
		if d.Check == LintDuplicate {
			body += "Other page: " + wikilink(d.Target, strings.TrimSuffix(path.Base(d.Target), ".md")) + "\n"
		}
		meta := reviewFront{Quire: Marker, Kind: "review", Format: Format, Reason: d.Detail, About: d.Note, Lint: d.Check, Private: d.private}
		b, err := seal(meta, "\n# "+escapeText(lintTitle[d.Check])+"\n\n"+body)
		if err != nil {
			return err
		}
		d.Review = l.dir.vaultPath(name)
		err = l.dir.write(name, b, false)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		l.created = append(l.created, d.Review)
		if l.opt.Reviewed != nil {
			l.opt.Reviewed(ingest.Reviewed{Path: d.Review, Reason: d.Detail, About: d.Note})
		}
	}
	return nil
}

// clipName keeps a review item's name within what file systems take.
func clipName(s string) string {
	const limit = 150
	if len(s) <= limit {
		return s
	}
	return strings.TrimSpace(strings.ToValidUTF8(s[:limit], ""))
}

// lintTitle heads each check's part of the report and its review items.
var lintTitle = map[string]string{
	LintLink:      "Links that no longer resolve",
	LintOrphan:    "Pages no source cites",
	LintDuplicate: "Pages that name the same thing",
	LintRaw:       "Originals missing from raw",
	LintFront:     "Frontmatter Quire cannot read",
	LintIndex:     "index.md out of step",
	LintSize:      "Pages too long for a model",
	LintLayout:    "Source notes in an older layout",
}

var lintOrder = []string{LintLink, LintOrphan, LintDuplicate, LintRaw, LintFront, LintIndex, LintSize, LintLayout}

// lintFront is the report's frontmatter.
type lintFront struct {
	Quire  string `yaml:"quire"`
	Kind   string `yaml:"quire_kind"`
	Format int    `yaml:"quire_format"`
	Hash   string `yaml:"quire_hash"`
}

// writeReport writes LintNote when it is absent or as Quire last wrote
// it; a report the user edited is left alone, and the warning says so.
func (l *linter) writeReport() (string, string, error) {
	at := l.dir.vaultPath(LintNote)
	old, err := l.dir.read(LintNote)
	if err != nil {
		return "", "", err
	}
	if old != nil {
		if m, mine := ours(old); !mine || m.Kind != "lint" {
			return "", at + " was edited or is not Quire's, so Quire did not rewrite it", nil
		}
	}
	var b strings.Builder
	b.WriteString("\n# Quire's notes: check\n\n")
	b.WriteString("Quire regenerates this note each time it checks its notes (command *Check the generated notes*, or `quire lint`): do not edit it. ")
	b.WriteString("Checked " + itoa(len(l.notes)) + " notes on " + l.opt.Now.UTC().Format("2006-01-02") + ": ")
	if len(l.defects) == 0 {
		b.WriteString("nothing to mend.\n")
	} else {
		b.WriteString(itoa(len(l.defects)) + " to look at. Those that need a decision are also review items, in " + l.dir.vaultPath("Review") + "/.\n\n")
	}
	for _, check := range lintOrder {
		var lines []string
		hidden := 0
		for _, d := range l.defects {
			if d.Check != check {
				continue
			}
			if d.private {
				hidden++
				continue
			}
			line := wikilink(d.Note, strings.TrimSuffix(path.Base(d.Note), ".md")) + ": " + escapeText(d.Detail)
			if d.Review != "" {
				line += " (" + wikilink(d.Review, "review") + ")"
			}
			lines = append(lines, line)
		}
		if hidden > 0 {
			lines = append(lines, itoa(hidden)+" in private notes (`quire lint` names them)")
		}
		if len(lines) > 0 {
			b.WriteString("## " + lintTitle[check] + "\n\n")
			bullets(&b, lines)
		}
	}
	doc, err := seal(lintFront{Quire: Marker, Kind: "lint", Format: Format}, b.String())
	if err != nil {
		return "", "", err
	}
	if string(old) == string(doc) {
		return at, "", nil
	}
	return at, "", l.dir.write(LintNote, doc, true)
}
