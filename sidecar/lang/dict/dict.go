// Package dict holds Quire's bilingual word lists, generated from the
// FreeDict dictionaries by scripts/gen-dict (see NOTICE) and embedded in
// the binary so that translation needs nothing at run time.
//
// A table maps a lowercased, unfolded word of one language to its best
// few translations, best first; keys that start with "~" are stems (as
// package lang stems) and merge the translations of every word with that
// stem, for inflected forms the dictionary does not list.
package dict

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
)

//go:embed *.tsv.gz
var files embed.FS

// StemPrefix marks a stem key.
const StemPrefix = "~"

// Table is one direction's word list. It keeps the decoded text and the
// start of each line, sorted by key, and finds a key by binary search:
// building a map of a hundred thousand Czech keys took longer than the
// whole of a query's translation would.
type Table struct {
	From, To string
	text     string
	lines    []uint32 // start offsets of the entry lines, in key order

	foldOnce sync.Once
	folded   map[string][]uint32 // folded key → lines, for keys that fold
}

// Lookup returns the translations of key, best first, or nil.
func (t *Table) Lookup(key string) []string {
	if t == nil {
		return nil
	}
	i := sort.Search(len(t.lines), func(i int) bool { return t.key(i) >= key })
	if i == len(t.lines) || t.key(i) != key {
		return nil
	}
	line := t.line(i)
	return strings.Split(line[len(key)+1:], "\t")
}

// LookupFolded is Lookup for a key typed without its accents ("citta"
// for "città", "~mest" for "~měst"): fold must be the folding the caller
// applied (lang.Fold). When several keys fold alike ("~měst", town, and
// "~mést", sweep) it returns all their translations, each key's in turn
// in byte order of the keys, without repeats. The index of folded keys is
// built on first use.
func (t *Table) LookupFolded(folded string, fold func(string) string) []string {
	if t == nil {
		return nil
	}
	t.foldOnce.Do(func() {
		t.folded = make(map[string][]uint32)
		for i := range t.lines {
			if k := t.key(i); !isASCII(k) {
				f := fold(k)
				t.folded[f] = append(t.folded[f], uint32(i))
			}
		}
	})
	var out []string
	for _, i := range t.folded[folded] {
		k := t.key(int(i))
		for _, tr := range strings.Split(t.line(int(i))[len(k)+1:], "\t") {
			if !slices.Contains(out, tr) {
				out = append(out, tr)
			}
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Len returns the number of keys, words and stems.
func (t *Table) Len() int { return len(t.lines) }

func (t *Table) line(i int) string {
	s := t.text[t.lines[i]:]
	if j := strings.IndexByte(s, '\n'); j >= 0 {
		s = s[:j]
	}
	return s
}

func (t *Table) key(i int) string {
	s := t.text[t.lines[i]:]
	if j := strings.IndexByte(s, '\t'); j >= 0 {
		s = s[:j]
	}
	return s
}

// Pairs lists the directions that have a table, as "from-to" codes.
func Pairs() []string {
	ents, _ := files.ReadDir(".")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".tsv.gz"))
	}
	return out
}

// Size returns the embedded (gzipped) size in bytes of the from→to table,
// or 0 when there is none.
func Size(from, to string) int {
	b, err := files.ReadFile(from + "-" + to + ".tsv.gz")
	if err != nil {
		return 0
	}
	return len(b)
}

var (
	mu     sync.Mutex
	loaded = map[string]*tableOnce{}
)

type tableOnce struct {
	once sync.Once
	t    *Table
	err  error
}

// Load returns the from→to table (codes such as "it", "en"), decoding it
// on first use. It returns nil and no error when there is no such table.
func Load(from, to string) (*Table, error) {
	name := from + "-" + to
	mu.Lock()
	o := loaded[name]
	if o == nil {
		o = &tableOnce{}
		loaded[name] = o
	}
	mu.Unlock()
	o.once.Do(func() {
		b, err := files.ReadFile(name + ".tsv.gz")
		if err != nil {
			return // no table for this pair
		}
		o.t, o.err = decode(from, to, b)
	})
	return o.t, o.err
}

// decode reads the gzipped table of one direction.
func decode(from, to string, gz []byte) (*Table, error) {
	t, err := Decode(from+"-"+to, gz)
	if err != nil {
		return nil, err
	}
	t.From, t.To = from, to
	return t, nil
}

// Decode reads a gzipped word list: "#" header lines, then lines of
// "key\titem\t…" sorted by key in byte order. Name is what errors call
// it. Other packages' embedded lists (lang/syn) share the format.
func Decode(name string, gz []byte) (*Table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	t := &Table{text: string(data)}
	t.lines = make([]uint32, 0, bytes.Count(data, []byte{'\n'}))
	prev := ""
	for off := 0; off < len(t.text); {
		end := strings.IndexByte(t.text[off:], '\n')
		if end < 0 {
			end = len(t.text) - off
		}
		line := t.text[off : off+end]
		if line != "" && line[0] != '#' {
			tab := strings.IndexByte(line, '\t')
			if tab <= 0 || tab == len(line)-1 {
				return nil, fmt.Errorf("load %s: bad line %q", name, line)
			}
			if key := line[:tab]; key <= prev {
				return nil, fmt.Errorf("load %s: key %q out of order", name, key)
			} else {
				prev = key
			}
			t.lines = append(t.lines, uint32(off))
		}
		off += end + 1
	}
	return t, nil
}
