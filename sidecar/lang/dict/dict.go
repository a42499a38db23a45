// Package dict holds Quire's bilingual word lists, generated from the
// FreeDict dictionaries by scripts/gen-dict (see NOTICE) and embedded in
// the binary so that translation needs nothing at run time.
//
// A table maps a lowercased, unfolded word of one language to its best
// few translations, best first; keys that start with "~" are stems (as
// package lang stems) and merge the translations of every word with that
// stem, for inflected forms the dictionary does not list.
//
// The tables are embedded as plain sorted text and searched where they
// lie: a lookup bisects the bytes of the embedded string, which the
// operating system pages in from the executable as it is touched. Nothing
// is decoded or indexed when a table is first used, so a one-shot
// `quire search` pays only for the pages its words land on (decoding and
// indexing the gzipped Czech lists took 100-400 ms before its first
// result).
package dict

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// The embedded tables, one per direction, named "from-to". Each is
// "#" header lines, then "key\ttranslation\t…" lines sorted by key in byte
// order; scripts/gen-dict writes them and TestTables checks them.
var (
	//go:embed cs-en.tsv
	csEn string
	//go:embed en-cs.tsv
	enCs string
	//go:embed it-en.tsv
	itEn string
	//go:embed en-it.tsv
	enIt string
	//go:embed es-en.tsv
	esEn string
	//go:embed en-es.tsv
	enEs string
	//go:embed de-en.tsv
	deEn string
	//go:embed en-de.tsv
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

// Table is one direction's word list: sorted text, searched in place.
type Table struct {
	From, To string
	text     string
	body     int // offset of the first entry line, after the header

	foldOnce sync.Once
	folded   map[string][]int // folded key → line offsets, for keys that fold
}

func newTable(text string) *Table {
	t := &Table{text: text}
	for t.body < len(text) && text[t.body] == '#' {
		nl := strings.IndexByte(text[t.body:], '\n')
		if nl < 0 {
			t.body = len(text)
			break
		}
		t.body += nl + 1
	}
	return t
}

// find returns the offset of key's line, or -1. It bisects byte offsets:
// the line holding the middle byte is compared, and the half that cannot
// hold key is dropped with it.
func (t *Table) find(key string) int {
	lo, hi := t.body, len(t.text) // lo is a line start; [lo, hi) holds whole lines
	for lo < hi {
		mid := lo + (hi-lo)/2
		start := lo
		if i := strings.LastIndexByte(t.text[lo:mid], '\n'); i >= 0 {
			start = lo + i + 1
		}
		end := t.lineEnd(start)
		k := t.keyAt(start)
		switch {
		case k == key:
			return start
		case k < key:
			lo = end + 1
		default:
			hi = start
		}
	}
	return -1
}

// lineEnd is the offset of the newline ending the line at start, or the
// text's length.
func (t *Table) lineEnd(start int) int {
	if i := strings.IndexByte(t.text[start:], '\n'); i >= 0 {
		return start + i
	}
	return len(t.text)
}

func (t *Table) keyAt(start int) string {
	line := t.text[start:t.lineEnd(start)]
	if i := strings.IndexByte(line, '\t'); i >= 0 {
		return line[:i]
	}
	return line
}

// items returns the translations on the line at start.
func (t *Table) items(start int) []string {
	line := t.text[start:t.lineEnd(start)]
	_, rest, _ := strings.Cut(line, "\t")
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
// applied (lang.Fold). When several keys fold alike ("~měst", town, and
// "~mést", sweep) it returns all their translations, each key's in turn
// in byte order of the keys, without repeats. The index of folded keys is
// built on first use: it reads the whole table, which only queries typed
// without accents need.
func (t *Table) LookupFolded(folded string, fold func(string) string) []string {
	if t == nil {
		return nil
	}
	t.foldOnce.Do(func() {
		t.folded = make(map[string][]int)
		t.each(func(start int, key string) {
			if !isASCII(key) {
				f := fold(key)
				t.folded[f] = append(t.folded[f], start)
			}
		})
	})
	var out []string
	for _, at := range t.folded[folded] {
		for _, tr := range t.items(at) {
			if !slices.Contains(out, tr) {
				out = append(out, tr)
			}
		}
	}
	return out
}

// each calls f with every entry line's offset and key, in key order.
func (t *Table) each(f func(start int, key string)) {
	for off := t.body; off < len(t.text); {
		end := t.lineEnd(off)
		if end > off {
			f(off, t.keyAt(off))
		}
		off = end + 1
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

// Size returns the embedded size in bytes of the from→to table, or 0 when
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
	t := newTable(*s)
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
		line := t.text[start:t.lineEnd(start)]
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
