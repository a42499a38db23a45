// Package dict holds Quire's bilingual word lists, generated from the
// FreeDict dictionaries by scripts/gen-dict (see NOTICE) and embedded in
// the binary so that translation needs nothing at run time.
//
// A table maps a lowercased, unfolded word of one language to its best
// few translations, best first; keys that start with "~" are stems (as
// package lang stems) and merge the translations of every word with that
// stem, for inflected forms the dictionary does not list.
//
// The tables are embedded packed (see Pack): sorted text cut into 16 KiB
// blocks, each compressed on its own. A lookup picks the block by the
// blocks' first keys, inflates that block alone the first time (about
// 0.3 ms) and bisects it in place. So a one-shot `quire search` inflates
// only the few blocks its words land on (decoding and indexing the
// gzipped Czech lists whole took 100-400 ms before its first result),
// and the binary carries 6.9 MB of word lists instead of 19.7 MB.
package dict

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// The embedded tables, one per direction, named "from-to", packed (see
// Pack). Each table's text is "#" header lines, then "key\ttranslation\t…"
// lines sorted by key in byte order; scripts/gen-dict writes it as .tsv
// and packs it as .pack, TestTables checks it and TestPacked that the
// two agree.
var (
	//go:embed cs-en.pack
	csEn string
	//go:embed en-cs.pack
	enCs string
	//go:embed it-en.pack
	itEn string
	//go:embed en-it.pack
	enIt string
	//go:embed es-en.pack
	esEn string
	//go:embed en-es.pack
	enEs string
	//go:embed de-en.pack
	deEn string
	//go:embed en-de.pack
	enDe string
)

var tables = map[string]*string{
	"cs-en": &csEn, "en-cs": &enCs,
	"it-en": &itEn, "en-it": &enIt,
	"es-en": &esEn, "en-es": &enEs,
	"de-en": &deEn, "en-de": &enDe,
}

// StemPrefix marks a stem key.
const StemPrefix = "~"

// Table is one direction's word list: sorted text in blocks, each
// inflated when a lookup first lands in it, and searched in place.
// Offsets ("start") are into the whole text, header included.
type Table struct {
	From, To string
	head     string   // the "#" header lines
	body     int      // offset of the first entry line, after the header
	size     int      // length of the whole text
	blocks   []*block // in key order, covering [body, size)
}

// newTable returns a table over plain text, one block already decoded.
func newTable(text string) *Table {
	body := headLen(text)
	t := &Table{head: text[:body], body: body, size: len(text)}
	if body < len(text) {
		rest := text[body:]
		first := keyOf(rest[:max(0, strings.IndexByte(rest, '\n'))])
		t.blocks = []*block{{off: body, n: len(rest), first: first, text: rest, load: func() {}}}
	}
	return t
}

// find returns the offset of key's line, or -1. It picks the block by
// the blocks' first keys, then bisects byte offsets within it: the line
// holding the middle byte is compared, and the half that cannot hold key
// is dropped with it.
func (t *Table) find(key string) int {
	if len(t.blocks) == 0 {
		return -1
	}
	j := sort.Search(len(t.blocks), func(j int) bool { return j > 0 && t.blocks[j].first > key })
	b := t.blocks[j-1]
	b.load()
	text := b.text
	lo, hi := 0, len(text) // lo is a line start; [lo, hi) holds whole lines
	for lo < hi {
		start, end := middleLine(text, lo, hi)
		k := keyOf(text[start:end])
		switch {
		case k == key:
			return b.off + start
		case k < key:
			lo = end + 1
		default:
			hi = start
		}
	}
	return -1
}

// line returns the line at start, without its newline.
func (t *Table) line(start int) string {
	i := sort.Search(len(t.blocks), func(i int) bool { return t.blocks[i].off+t.blocks[i].n > start })
	b := t.blocks[i]
	b.load()
	s := b.text[start-b.off:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// items returns the translations on the line at start.
func (t *Table) items(start int) []string {
	_, rest, _ := strings.Cut(t.line(start), "\t")
	return strings.Split(rest, "\t")
}

// Lookup returns the translations of key, best first, or nil.
func (t *Table) Lookup(key string) []string {
	if t == nil || key == "" {
		return nil
	}
	if at := t.find(key); at >= 0 {
		return t.items(at)
	}
	return nil
}

// LookupFolded is Lookup for a key typed without its accents ("citta"
// for "città", "~mest" for "~měst"): fold must be the folding the caller
// applied (lang.Fold; see NewFolding), folding letter by letter, and
// folded must be folded already. When several keys fold alike ("~měst", town, and
// "~mést", sweep) it returns all their translations, each key's in turn
// in byte order of the keys, without repeats.
//
// It reads only the blocks where such keys can sit: a key that folds to
// folded and differs from it starts with the same letters up to its
// first letter that folding changes, so the lookup walks folded letter
// by letter, at each step trying the letter itself and every letter that
// folds to what follows (FoldRanges), and leaves a path as soon as no key
// starts with it. Building an index of every key's folded form instead
// inflated and folded whole tables, most of a one-shot search's CPU time.
func (t *Table) LookupFolded(folded string, fg *Folding) []string {
	if t == nil || folded == "" {
		return nil
	}
	fold := fg.fold
	var keys []string
	var walk func(prefix, rest string)
	walk = func(prefix, rest string) {
		if !t.hasPrefix(prefix) {
			return
		}
		if rest == "" && !isASCII(prefix) && t.find(prefix) >= 0 && fold(prefix) == folded {
			keys = append(keys, prefix)
		}
		for _, f := range fg.runes {
			if strings.HasPrefix(rest, f.to) {
				walk(prefix+string(f.r), rest[len(f.to):])
			}
		}
		if rest != "" {
			_, n := utf8.DecodeRuneInString(rest)
			walk(prefix+rest[:n], rest[n:])
		}
	}
	walk("", folded)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var out []string
	for _, k := range keys {
		for _, tr := range t.Lookup(k) {
			if !slices.Contains(out, tr) {
				out = append(out, tr)
			}
		}
	}
	return out
}

// FoldRanges are the letters LookupFolded tries in place of a folded one:
// Latin-1's letters to Latin Extended-B, the combining marks, and Latin
// Extended Additional. TestFoldRangesCoverKeys checks that every letter
// of every table's keys that folding changes is among them.
var FoldRanges = [][2]rune{{0xC0, 0x250}, {0x300, 0x370}, {0x1E00, 0x1F00}}

// Folding is a folding of keys (lang.Fold) with the letters of
// FoldRanges it changes, listed once.
type Folding struct {
	fold  func(string) string
	runes []foldedRune
}

type foldedRune struct {
	r  rune
	to string // what fold makes of it
}

// NewFolding lists the letters of FoldRanges that fold changes.
func NewFolding(fold func(string) string) *Folding {
	fg := &Folding{fold: fold}
	for _, rg := range FoldRanges {
		for r := rg[0]; r < rg[1]; r++ {
			if to := fold(string(r)); to != string(r) {
				fg.runes = append(fg.runes, foldedRune{r, to})
			}
		}
	}
	return fg
}

// hasPrefix reports whether some key starts with prefix.
func (t *Table) hasPrefix(prefix string) bool {
	if prefix == "" || len(t.blocks) == 0 {
		return prefix == "" && len(t.blocks) > 0
	}
	j := sort.Search(len(t.blocks), func(j int) bool { return t.blocks[j].first >= prefix })
	// The first key >= prefix is block j's first key, or in block j-1.
	if j > 0 {
		b := t.blocks[j-1]
		b.load()
		if k, ok := lowerBound(b.text, prefix); ok {
			return strings.HasPrefix(k, prefix)
		}
	}
	return j < len(t.blocks) && strings.HasPrefix(t.blocks[j].first, prefix)
}

// middleLine returns the bounds of the line of text holding the middle
// byte of [lo, hi), where lo is a line start: the probe of both bisections.
func middleLine(text string, lo, hi int) (start, end int) {
	mid := lo + (hi-lo)/2
	start = lo
	if i := strings.LastIndexByte(text[lo:mid], '\n'); i >= 0 {
		start = lo + i + 1
	}
	end = len(text)
	if i := strings.IndexByte(text[start:], '\n'); i >= 0 {
		end = start + i
	}
	return start, end
}

// lowerBound returns the first key of text's lines that is >= key.
func lowerBound(text, key string) (string, bool) {
	lo, hi := 0, len(text) // lo is a line start; [lo, hi) holds whole lines
	found, best := false, ""
	for lo < hi {
		start, end := middleLine(text, lo, hi)
		k := keyOf(text[start:end])
		if k >= key {
			found, best = true, k
			hi = start
		} else {
			lo = end + 1
		}
	}
	return best, found
}

// each calls f with every entry line's offset and key, in key order. It
// inflates every block.
func (t *Table) each(f func(start int, key string)) {
	for _, b := range t.blocks {
		b.load()
		for off := 0; off < len(b.text); {
			end := len(b.text)
			if i := strings.IndexByte(b.text[off:], '\n'); i >= 0 {
				end = off + i
			}
			if end > off {
				f(b.off+off, keyOf(b.text[off:end]))
			}
			off = end + 1
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Keys returns every key, words and stems, in byte order. It reads the
// whole table.
func (t *Table) Keys() []string {
	var out []string
	t.each(func(_ int, key string) { out = append(out, key) })
	return out
}

// Len returns the number of keys, words and stems. It reads the whole
// table.
func (t *Table) Len() int {
	n := 0
	t.each(func(int, string) { n++ })
	return n
}

// Pairs lists the directions that have a table, as "from-to" codes, in
// byte order.
func Pairs() []string {
	out := make([]string, 0, len(tables))
	for p := range tables {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// Size returns the embedded (packed) size in bytes of the from→to table, or 0 when
// there is none.
func Size(from, to string) int {
	if s := tables[from+"-"+to]; s != nil {
		return len(*s)
	}
	return 0
}

var (
	mu     sync.Mutex
	loaded = map[string]*Table{}
)

// Load returns the from→to table (codes such as "it", "en"). It returns
// nil and no error when there is no such table. The error is kept for
// callers written when tables were decoded; an embedded table has none.
func Load(from, to string) (*Table, error) {
	name := from + "-" + to
	mu.Lock()
	defer mu.Unlock()
	if t, ok := loaded[name]; ok {
		return t, nil
	}
	s := tables[name]
	if s == nil {
		return nil, nil
	}
	t := openPacked(name, *s)
	t.From, t.To = from, to
	loaded[name] = t
	return t, nil
}

// Check reports the first malformed or out-of-order line of the table.
func (t *Table) Check() error {
	prev := ""
	var err error
	t.each(func(start int, key string) {
		if err != nil {
			return
		}
		line := t.line(start)
		tab := strings.IndexByte(line, '\t')
		if tab <= 0 || tab == len(line)-1 || strings.HasPrefix(line, "#") {
			err = fmt.Errorf("bad line %q", line)
			return
		}
		if key <= prev {
			err = fmt.Errorf("key %q out of order", key)
			return
		}
		prev = key
	})
	return err
}

// Decode reads a gzipped word list in the tables' format and checks it.
// Name is what errors call it. Other packages' embedded lists (lang/syn)
// share the format.
func Decode(name string, gz []byte) (*Table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	t := newTable(string(data))
	if err := t.Check(); err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	return t, nil
}
