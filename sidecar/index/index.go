// Package index is the only code that updates the keyword index and the
// catalog. It keeps them in step with the vault incrementally: a scan
// compares (path, size, mtime) with the catalog, the content hash decides,
// and only changed notes are re-chunked.
package index

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quire-app/quire/sidecar/bm25"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/source"
	"github.com/quire-app/quire/sidecar/state"
	"github.com/quire-app/quire/sidecar/vault"
)

// ErrVaultGone is returned when the vault is missing or empty while the
// index holds notes; the index is left exactly as it was.
var ErrVaultGone = errors.New("vault is missing or empty")

// schema versions the passages and the keyword index's documents; bump
// it when document fields change so that old indexes are rebuilt (vectors
// too: bump analysis instead when only analyzers change). bm25-v3: the
// heading path is stored as a list, not as display text.
const schema = "bm25-v3"

// analysis versions the analyzers and language detection, and the keyword
// documents' fields that are not passages (lang-5: inline tags; lang-6:
// the catalog's private mark and supersession, so that notes marked
// before it are read again; lang-7: languages detected on prose, not
// formulas or code; lang-8: the catalog's dates; lang-9: its link and
// word counts, which tell hub notes; lang-10: the exact tokens' field); bump it when they change so that the keyword
// index is rebuilt and notes' languages detected anew, while vectors, which depend on the
// passages only, are kept.
const analysis = "lang-10"

// Analysis is the analyzers' version, logged with eval runs.
func Analysis() string { return analysis }

// Index is an open index over one vault.
type Index struct {
	Vault   string
	cfg     config.Config
	privacy vault.Private // cfg's private entries, read once
	rulesMu sync.RWMutex  // guards rules, which SetIgnore replaces
	rules   vault.Rules
	// chunker is built on first use: its tokenizer's vocabulary takes a
	// noticeable moment to load, which a search that finds nothing to
	// re-chunk should not pay before its first result.
	chunker func() *markdown.Chunker
	cat     *catalog
	BM25    *bm25.Index
	// OnProgress, when set, is called as Run and Embed go (from their
	// goroutine: it must not block long). Set it before either runs.
	OnProgress func(Progress)
	mu         sync.Mutex // one Run at a time
	embedMu    sync.Mutex // one Embed at a time
	dense      *dense     // nil without an embedder
	// textSeen is the share of words the last Embed's windows held, and
	// perPassage the model windows it read per passage, as
	// math.Float64bits: status reads them while a background Embed sets
	// them.
	textSeen, perPassage atomic.Uint64
	// checkpoint overrides checkpointVectors; tests set it.
	checkpoint int
	// Foreground says someone waits on this index's passes (quire index,
	// quire eval): Embed then uses every core at normal priority instead
	// of dense.workers threads at lowered priority, which is for the
	// sidecar's passes that run beside searches. Set it before Embed runs.
	Foreground bool
}

// Stats is what a Run did.
type Stats struct {
	Notes    int           `json:"notes"`    // notes in the index after the run
	Chunks   int           `json:"chunks"`   // passages in the index after the run
	Changed  int           `json:"changed"`  // notes (re-)chunked
	Removed  int           `json:"removed"`  // notes removed
	Skipped  []vault.Skip  `json:"skipped"`  // files left out, with reasons
	Warnings []vault.Skip  `json:"warnings"` // notes kept despite a problem
	Duration time.Duration `json:"durationNs"`
}

// Open opens (or creates) the index for vaultDir in the locked state folder.
func Open(vaultDir string, st *state.Dir, cfg config.Config) (*Index, error) {
	cat, err := openCatalog(st.Join("catalog"))
	if err != nil {
		return nil, err
	}
	ix := &Index{
		Vault:   vaultDir,
		cfg:     cfg,
		privacy: cfg.PrivateNotes(),
		rules:   RulesOf(vaultDir, cfg),
		chunker: sync.OnceValue(func() *markdown.Chunker { return markdown.New(markdown.Params(cfg.Chunk)) }),
		cat:     cat,
	}
	meta, err := cat.meta()
	if err != nil {
		cat.close()
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	dir := st.Join("bm25")
	if meta.Fingerprint != "" && meta.Fingerprint != ix.Fingerprint() {
		// Chunking or analysis changed: passages must be rebuilt.
		if err := bm25.Remove(dir); err != nil {
			cat.close()
			return nil, err
		}
		if err := cat.clear(); err != nil {
			cat.close()
			return nil, err
		}
	}
	ix.BM25, err = bm25.Open(dir)
	if err != nil {
		cat.close()
		return nil, err
	}
	return ix, nil
}

// Fingerprint names what the passages and the keyword index depend on:
// the chunking and the analysis.
func (ix *Index) Fingerprint() string {
	return ix.chunking() + " analysis=" + analysis
}

// chunking names what the passages depend on, which vectors depend on too.
func (ix *Index) chunking() string {
	c := ix.cfg.Chunk
	return fmt.Sprintf("%s chunk=cl100k/%d/%d/%d/%s", schema, c.MaxTokens, c.OverlapTokens, c.MinTokens, markdown.Version)
}

// Close closes the keyword index and the catalog.
func (ix *Index) Close() error {
	var saveErr error
	if ix.dense != nil {
		saveErr = ix.dense.store.Save()
	}
	return errors.Join(saveErr, ix.BM25.Close(), ix.cat.close())
}

// Rules returns the path rules in force for this vault.
func (ix *Index) Rules() vault.Rules {
	ix.rulesMu.RLock()
	defer ix.rulesMu.RUnlock()
	return ix.rules
}

// SetPaths replaces the configured ignore prefixes and generated folder;
// the next Run drops the notes they now cover and indexes the ones they no
// longer do.
func (ix *Index) SetPaths(ignore []string, folder string) {
	ix.rulesMu.Lock()
	defer ix.rulesMu.Unlock()
	ix.cfg.Ignore, ix.cfg.Folder = ignore, folder
	ix.rules = RulesOf(ix.Vault, ix.cfg)
}

// RulesOf returns the vault's path rules under cfg. Besides the configured
// prefixes they leave out the generated folder's raw/ and Inbox/: a
// Markdown clip saved there as an original, or waiting to be ingested,
// would otherwise be found beside the source note made from it.
func RulesOf(vaultDir string, cfg config.Config) vault.Rules {
	ignore := slices.Clone(cfg.Ignore)
	if cfg.Folder != "" {
		ignore = append(ignore, cfg.Folder+"/raw/", cfg.Folder+"/Inbox/")
	}
	return vault.NewRules(vaultDir, ignore, cfg.MaxFileBytes)
}

// Languages returns the languages of the indexed notes, most notes first.
func (ix *Index) Languages() ([]string, error) {
	t, _ := ix.cat.summary()
	delete(t.Langs, "")
	return ByCount(t.Langs), nil
}

// Summary is what the catalog's entries add up to, as every status shows
// it.
type Summary struct {
	Notes, Chunks int
	// Languages counts notes per language code; "unknown" when none was
	// declared or detected.
	Languages map[string]int
	// Warnings are the notes kept despite a problem, by path.
	Warnings []vault.Skip
}

// Summary adds up the catalog as every status shows it: the counts from
// its tally, the warnings from its marked notes (a note with a warning or
// out of scale is marked), so that only a vault with superseded notes
// naming a successor has every record read, by all, to follow the chains.
func (ix *Index) Summary(all func() (map[string]Entry, error)) (Summary, error) {
	t, marks := ix.cat.summary()
	return summarizeMarks(t, marks, all)
}

// summarizeMarks is Summary over a tally and the marked notes.
func summarizeMarks(t Tally, marks map[string]Entry, all func() (map[string]Entry, error)) (Summary, error) {
	s := Summary{Notes: t.Notes, Chunks: t.Chunks, Languages: map[string]int{}, Warnings: []vault.Skip{}}
	for lang, n := range t.Langs {
		if lang == "" {
			lang = "unknown"
		}
		s.Languages[lang] += n
	}
	chains := false
	for p, e := range marks {
		if e.Warning != "" {
			s.Warnings = append(s.Warnings, vault.Skip{Path: p, Reason: e.Warning})
		}
		if OutOfScale(e) {
			s.Warnings = append(s.Warnings, vault.Skip{Path: p, Reason: fmt.Sprintf(
				"%d passages for %d KB, far more than a note this size makes: its Markdown is cut badly (please report it)", e.Chunks, (e.Size+1023)/1024)})
		}
		chains = chains || e.Superseded && e.SupersededBy != ""
	}
	if chains {
		entries, err := all()
		if err != nil {
			return Summary{}, err
		}
		s.Warnings = append(s.Warnings, Successions(entries).Broken...)
	}
	sort.Slice(s.Warnings, func(i, j int) bool { return s.Warnings[i].Path < s.Warnings[j].Path })
	return s, nil
}

// passagesPerKiB bounds a sound note's passages per KiB (plus one). The
// real notes of every bench corpus make at most 2.9 (Czech glossaries:
// many short sections, more tokens per byte); the notes an old chunker cut
// into 4,096 empty passages made over 600.
const passagesPerKiB = 8

// OutOfScale reports whether a note has far more passages than its size
// explains: the sign of a chunking bug, which distorts the whole vault's
// keyword statistics, not only that note's.
func OutOfScale(e Entry) bool {
	return float64(e.Chunks) > passagesPerKiB*(1+float64(e.Size)/1024)
}

// ByCount orders language codes by how many notes have them, most first,
// leaving out "unknown"; the sidecar's status reports such counts.
func ByCount(count map[string]int) []string {
	out := make([]string, 0, len(count))
	for l := range count {
		if l != "unknown" {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if count[out[i]] != count[out[j]] {
			return count[out[i]] > count[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// Meta returns the catalog's record of the last run.
func (ix *Index) Meta() (Meta, error) { return ix.cat.meta() }

// Entries returns the catalog's notes, reading every record the first
// time.
func (ix *Index) Entries() (map[string]Entry, error) { return ix.cat.entries() }

// Loaded reports whether the catalog's notes have been read whole (by a
// pass, or Entries): until then Entry reads a note's record from the
// file.
func (ix *Index) Loaded() bool { return ix.cat.loaded() }

// Entry returns one note's catalog entry; ok is false for a note the
// catalog does not hold.
func (ix *Index) Entry(p string) (e Entry, ok bool, err error) { return ix.cat.get(p) }

// Tally returns what the catalog's records add up to and the records of
// the marked notes (private, superseded, with a warning), without reading
// the rest.
func (ix *Index) Tally() (Tally, map[string]Entry) { return ix.cat.summary() }

// result is one note read and chunked by a worker.
type result struct {
	file  vault.File
	entry *Entry     // nil: remove from the index
	docs  []bm25.Doc // passages; nil with touch means content unchanged
	touch bool       // only size/mtime changed
	known bool       // the catalog had this note, so it has passages to replace
	skip  *vault.Skip
}

// Run brings the index up to date with the vault.
func (ix *Index) Run(ctx context.Context) (Stats, error) { return ix.run(ctx, nil) }

// RunPaths brings the index up to date for the vault-relative paths a
// watch reported: notes, which are read again or dropped, and folders
// ("Projects/", or a folder a rename or removal named: any path not
// ending in .md), whose notes are all looked at. Its cost follows the
// paths, not the vault. An empty path asks for a whole Run, as nil paths
// do.
func (ix *Index) RunPaths(ctx context.Context, paths []string) (Stats, error) {
	if len(paths) == 0 || slices.Contains(paths, "") {
		return ix.run(ctx, nil)
	}
	return ix.run(ctx, paths)
}

// found is what a run looked at: the notes present, the files skipped,
// and which catalog paths it covers (nil: all of them).
type found struct {
	files  []vault.File
	skips  []vault.Skip
	covers func(path string) bool
}

// look finds the notes under scope (nil: the whole vault).
func (ix *Index) look(scope []string) (found, error) {
	rules := ix.Rules()
	if scope == nil {
		files, skips, err := vault.Scan(ix.Vault, rules)
		return found{files: files, skips: skips}, err
	}
	if st, err := os.Stat(ix.Vault); err != nil || !st.IsDir() {
		return found{}, fmt.Errorf("%w: %s", vault.ErrNoVault, ix.Vault)
	}
	var f found
	notes, dirs := map[string]bool{}, []string{}
	for _, p := range scope {
		if dir, ok := strings.CutSuffix(p, "/"); ok || !vault.IsFile(p) {
			files, skips, err := vault.ScanDir(ix.Vault, dir, rules)
			if err != nil {
				return found{}, err
			}
			f.files, f.skips = append(f.files, files...), append(f.skips, skips...)
			dirs = append(dirs, dir+"/")
			continue
		}
		notes[p] = true
		if file, skip := vault.StatFile(ix.Vault, p, rules); file != nil {
			f.files = append(f.files, *file)
		} else if skip != nil {
			f.skips = append(f.skips, *skip)
		}
	}
	f.covers = func(p string) bool {
		if notes[p] {
			return true
		}
		for _, d := range dirs {
			if strings.HasPrefix(p, d) {
				return true
			}
		}
		return false
	}
	// A note both named and under a named folder is looked at twice.
	sort.Slice(f.files, func(i, j int) bool { return f.files[i].Path < f.files[j].Path })
	f.files = slices.CompactFunc(f.files, func(a, b vault.File) bool { return a.Path == b.Path })
	return f, nil
}

func (ix *Index) run(ctx context.Context, scope []string) (Stats, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	began := time.Now()
	var st Stats
	if err := ix.reconcile(); err != nil {
		return st, err
	}
	meta, err := ix.cat.meta()
	if err != nil {
		return st, err
	}
	notes, err := ix.cat.countOf(source.Vault)
	if err != nil {
		return st, err
	}
	f, err := ix.look(scope)
	if err != nil {
		if errors.Is(err, vault.ErrNoVault) && notes > 0 {
			return st, fmt.Errorf("%w: %s not found while the index holds %d notes; index left unchanged", ErrVaultGone, ix.Vault, notes)
		}
		return st, err
	}

	f.files = slices.DeleteFunc(f.files, func(file vault.File) bool {
		if source.Foreign(file.Path) {
			f.skips = append(f.skips, vault.Skip{Path: file.Path, Reason: "its name reads as a note of another source (id:path); rename it without the colon"})
			return true
		}
		return false
	})

	// old holds the catalog's entries of the notes looked at: all of
	// them on a whole run, which the workers read while the writer
	// changes the catalog.
	old := map[string]Entry{}
	if f.covers == nil {
		if old, err = ix.cat.entriesOf(source.Vault); err != nil {
			return st, err
		}
		st.Skipped = f.skips
	} else {
		err := ix.cat.read(func(all map[string]Entry) {
			for _, file := range f.files {
				if e, ok := all[file.Path]; ok {
					old[file.Path] = e
				}
			}
			for p, e := range all {
				if f.covers(p) && !source.Foreign(p) {
					old[p] = e
				}
			}
		})
		if err != nil {
			return st, err
		}
		for _, sk := range meta.Skipped {
			if !f.covers(sk.Path) {
				st.Skipped = append(st.Skipped, sk)
			}
		}
		st.Skipped = append(st.Skipped, f.skips...)
	}

	present := make(map[string]bool, len(f.files))
	var todo []vault.File
	for _, file := range f.files {
		present[file.Path] = true
		if e, ok := old[file.Path]; ok && e.Size == file.Size && e.ModTime == file.ModTime.UnixNano() {
			continue
		}
		todo = append(todo, file)
	}
	var gone []string
	for p := range old {
		if !present[p] {
			gone = append(gone, p)
		}
	}
	if notes > 0 && len(gone) == notes && len(f.files) == 0 {
		return st, fmt.Errorf("%w: %s has no notes while the index holds %d; index left unchanged", ErrVaultGone, ix.Vault, notes)
	}

	w := newWriter(ix, &st, len(todo))
	for _, p := range gone {
		if err := w.remove(p); err != nil {
			return st, err
		}
	}
	results := ix.process(ctx, todo, old, ix.dating(ctx, todo))
	for r := range results {
		if err := w.add(r); err != nil {
			for range results {
			}
			return st, err
		}
	}
	if err := ctx.Err(); err != nil {
		_ = w.flush()
		return st, err
	}
	if err := w.flush(); err != nil {
		return st, err
	}

	err = ix.cat.read(func(entries map[string]Entry) {
		st.Notes = len(entries)
		for p, e := range entries {
			st.Chunks += e.Chunks
			if e.Warning != "" {
				st.Warnings = append(st.Warnings, vault.Skip{Path: p, Reason: e.Warning})
			}
		}
	})
	if err != nil {
		return st, err
	}
	st.Duration = time.Since(began)
	err = ix.cat.setMeta(Meta{Fingerprint: ix.Fingerprint(), LastIndex: time.Now().UTC(), Skipped: st.Skipped})
	return st, err
}

// process reads and chunks notes on all cores; the caller writes.
func (ix *Index) process(ctx context.Context, todo []vault.File, old map[string]Entry, d *dating) <-chan result {
	jobs := make(chan vault.File)
	go func() {
		defer close(jobs)
		for _, f := range todo {
			select {
			case jobs <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	return onAllCores(jobs, func(f vault.File) result {
		return ix.prepareGuarded(ctx, f, entryOf(old, f.Path), d)
	})
}

// onAllCores runs work on every job, on as many goroutines as there are
// cores, and closes the channel of results once jobs is closed and every
// job is done.
func onAllCores[J, R any](jobs <-chan J, work func(J) R) <-chan R {
	out := make(chan R, 64)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				out <- work(j)
			}
		}()
	}
	go func() { wg.Wait(); close(out) }()
	return out
}

// entryOf returns a copy of path's entry in old, or nil for a new note.
func entryOf(old map[string]Entry, path string) *Entry {
	if e, ok := old[path]; ok {
		return &e
	}
	return nil
}

// prepareGuarded is prepare, where a panic while reading one note (a bug
// that one note's text finds) becomes a skip naming that note, logged with
// its stack, and the pass goes on with the rest of the vault.
func (ix *Index) prepareGuarded(ctx context.Context, f vault.File, prev *Entry, d *dating) (r result) {
	defer func() {
		if p := recover(); p != nil {
			slog.Error("index: reading a note panicked", "path", f.Path, "panic", p, "stack", string(debug.Stack()))
			r = result{file: f, known: prev != nil, skip: &vault.Skip{Path: f.Path, Reason: fmt.Sprintf("left out: reading it failed inside Quire (%v); please report this note", p)}}
		}
	}()
	if vault.IsPDF(f.Path) {
		return ix.preparePDF(ctx, f, prev, d)
	}
	return ix.prepare(f, prev, d)
}

func (ix *Index) prepare(f vault.File, prev *Entry, d *dating) result {
	note, err := vault.Read(ix.Vault, f.Path, ix.cfg.MaxFileBytes)
	return ix.chunk(f, note, err, prev, d)
}

// chunk makes the result of a note read (or not: err) at f: its catalog
// entry and passages, or why it is skipped.
func (ix *Index) chunk(f vault.File, note *vault.Note, err error, prev *Entry, d *dating) result {
	r := result{file: f, known: prev != nil}
	if err != nil {
		var se *vault.SkipError
		if errors.As(err, &se) {
			r.skip = &vault.Skip{Path: f.Path, Reason: se.Reason}
		} else {
			r.skip = &vault.Skip{Path: f.Path, Reason: err.Error()}
		}
		return r
	}
	e := &Entry{Size: f.Size, ModTime: f.ModTime.UnixNano(), Hash: note.Hash, Title: note.Title, Warning: note.Warning, Private: note.Private,
		Superseded: note.Supersession.Superseded, SupersededBy: note.Supersession.By}
	d.stamp(e, note, f)
	e.LinkLines, e.Lines = markdown.LinkLines(string(note.Body()))
	r.entry = e
	if prev != nil && prev.Hash == note.Hash {
		// Touched but not changed: remember the new mtime, keep the passages.
		e.Chunks, e.Lang, r.touch = prev.Chunks, prev.Lang, true
		return r
	}
	l := noteLang(note)
	e.Lang = string(l)
	chunks, capped := ix.chunker().SplitCapped(note.Raw, note.BodyStart)
	if capped {
		w := fmt.Sprintf("only the first %d passages are indexed", len(chunks))
		if e.Warning != "" {
			w = e.Warning + "; " + w
		}
		e.Warning = w
	}
	r.docs = make([]bm25.Doc, len(chunks))
	tags := noteTags(note)
	for i, c := range chunks {
		r.docs[i] = toDoc(note, string(l), i, c)
		r.docs[i].Tags = tags
	}
	e.Chunks = len(chunks)
	return r
}

// ShownHeadings is a passage's heading path as front ends show it beside
// the note's title: a top heading that repeats the title is not shown
// twice.
func ShownHeadings(title string, headings []string) []string {
	if len(headings) > 0 && strings.EqualFold(headings[0], title) {
		headings = headings[1:]
	}
	return append([]string{}, headings...)
}

// noteTags are the note's frontmatter tags and the inline tags of its body,
// each once: the tags Obsidian lists for it, which a search filter names.
func noteTags(n *vault.Note) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range append(append([]string{}, n.Tags...), markdown.Tags(n.Body())...) {
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func toDoc(n *vault.Note, l string, i int, c markdown.Chunk) bm25.Doc {
	text := string(n.Raw[c.Start:c.End])
	return bm25.Doc{
		ID:          n.Path + "#" + strconv.Itoa(i),
		Path:        n.Path,
		Lang:        l,
		Title:       n.Title,
		Aliases:     n.Aliases,
		Tags:        n.Tags,
		Headings:    ShownHeadings(n.Title, c.Headings),
		HeadingText: strings.Join(append(append([]string{}, c.Headings...), c.Contains...), "\n"),
		Body:        markdown.Plain(text),
		Text:        text,
		Start:       c.Start,
		End:         c.End,
	}
}

// reconcile removes passages of notes the catalog does not hold. They can
// only exist if a run was killed between writing the keyword index and
// the catalog; the counts reveal it cheaply.
func (ix *Index) reconcile() error {
	t, _ := ix.cat.summary()
	n, err := ix.BM25.Count()
	if err != nil {
		return err
	}
	if int(n) == t.Chunks {
		return nil
	}
	entries, err := ix.cat.entries()
	if err != nil {
		return err
	}
	paths, err := ix.BM25.Paths()
	if err != nil {
		return err
	}
	var stray []string
	for p, c := range paths {
		if e, ok := entries[p]; !ok || e.Chunks != c {
			stray = append(stray, p)
		}
	}
	if len(stray) == 0 {
		return nil
	}
	if err := ix.BM25.Replace(stray, nil); err != nil {
		return err
	}
	// Forget those notes: the run that follows re-reads them.
	drop := map[string]*Entry{}
	for _, p := range stray {
		if _, ok := entries[p]; ok {
			drop[p] = nil
		}
	}
	return ix.cat.apply(drop)
}

// detectBytes is how much of a note's body its language is detected on:
// enough prose to decide even when formulas or code come first.
const detectBytes = 16 << 10

// noteLang is the language a note declares in its frontmatter, else the
// one its prose is written in (markdown.Prose: formulas, code and TeX
// commands say nothing of it), or Unknown.
func noteLang(note *vault.Note) lang.Lang {
	if l := lang.Parse(note.Lang); l != lang.Unknown {
		return l
	}
	body := note.Body()
	if len(body) > detectBytes {
		body = body[:detectBytes]
	}
	return lang.Detect(markdown.Prose(string(body)))
}

// gitDatesTimeout bounds the reading of a vault's git history for a pass:
// past it, notes git did not date in time are dated by their frontmatter
// or their file.
const gitDatesTimeout = 20 * time.Second

// dating is what a pass dates its notes by: the vault's daily-note names
// and, when the vault is a git repository, the last commit of each note
// the pass reads.
type dating struct {
	daily vault.DailyNotes
	git   map[string]time.Time
}

func (ix *Index) dating(ctx context.Context, todo []vault.File) *dating {
	paths := make([]string, len(todo))
	for i, f := range todo {
		paths[i] = f.Path
	}
	ctx, cancel := context.WithTimeout(ctx, gitDatesTimeout)
	defer cancel()
	return &dating{daily: vault.ReadDailyNotes(ix.Vault), git: vault.GitDates(ctx, ix.Vault, paths)}
}

// stamp sets e's dates. Updated: the last commit that changed the note
// when git knows it (a clone's file times are all the clone's), else its
// frontmatter `updated`, else its file time. Dated: the day its daily-note
// name or its frontmatter `date` says.
func (d *dating) stamp(e *Entry, note *vault.Note, f vault.File) {
	d.stampFile(e, f)
	if d.git[f.Path].IsZero() && !note.Updated.IsZero() {
		e.Updated = note.Updated.Unix()
	}
	if e.Dated == 0 && !note.Date.IsZero() {
		e.Dated = note.Date.Unix()
	}
}

// stampFile sets the dates of a file that has no frontmatter (a PDF):
// updated by its last commit, else its file time; dated by a daily-note
// name.
func (d *dating) stampFile(e *Entry, f vault.File) {
	if t := d.git[f.Path]; !t.IsZero() {
		e.Updated = t.Unix()
	} else {
		e.Updated = f.ModTime.Unix()
	}
	if t, ok := d.daily.Date(f.Path); ok {
		e.Dated = t.Unix()
	}
}
