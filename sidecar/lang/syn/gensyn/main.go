// Command gensyn builds Quire's English synonym table (package syn) from
// the WordNet 3.0 database that Debian ships in wordnet-base
// (/usr/share/wordnet), and writes it gzipped beside package syn with its
// NOTICE. Run it through scripts/gen-syn.
//
// WordNet lists a word's senses most frequent first and counts, in
// cntlist.rev, how often each sense was tagged in its sense-tagged corpus.
// A query word's sense is unknown, so the table keeps only the senses a
// reader would most likely mean: a sense of a tagged word that carries at
// least a share of the word's tagged uses (and is among the first few of
// its part of speech), and every sense of an untagged word that has very
// few senses. Untagged words' sense order carries no frequency (keel's
// first sense is a ridge shaped like one), so a polysemous untagged word
// gets nothing rather than a guess.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/quire-app/quire/sidecar/lang"
)

// params bound what the table keeps; see the flags in main.
type params struct {
	senses   int     // senses considered per part of speech
	share    float64 // least share of a tagged word's tagged uses
	untagged int     // most senses, all parts of speech, of an untagged word that keeps them
	per      int     // most items per key
	words    int     // most words in a key or an item
	hyper    bool    // add direct hypernyms of kept noun senses
	hypo     int     // add up to this many direct hyponyms of kept noun senses
	pos      string  // parts of speech used, of "nvar"
}

func main() {
	src := flag.String("src", "/usr/share/wordnet", "folder with the WordNet index.*, data.*, *.exc and cntlist.rev files")
	out := flag.String("out", "sidecar/lang/syn", "folder to write en.tsv.gz and NOTICE to")
	var p params
	flag.IntVar(&p.senses, "senses", 2, "senses considered per part of speech, most frequent first")
	flag.Float64Var(&p.share, "share", 0.25, "least share of a tagged word's tagged uses for a sense to count")
	flag.IntVar(&p.untagged, "untagged", 1, "an untagged word with at most this many senses keeps them all")
	flag.IntVar(&p.per, "per", 8, "most related words kept per key")
	flag.IntVar(&p.words, "words", 2, "most words in a key or a related word")
	flag.BoolVar(&p.hyper, "hyper", false, "add the direct hypernyms of kept noun senses (marked @)")
	flag.IntVar(&p.hypo, "hypo", 0, "add up to this many direct hyponyms of kept noun senses (marked ~)")
	flag.StringVar(&p.pos, "pos", "nvar", "parts of speech used: n noun, v verb, a adjective, r adverb")
	flag.Parse()
	if err := run(*src, *out, p); err != nil {
		log.Fatal(err)
	}
}

// poses are WordNet's parts of speech in the order their senses are
// preferred when counts tie: nouns first, as queries are mostly nouns.
var poses = []struct{ name, tag string }{{"noun", "n"}, {"verb", "v"}, {"adj", "a"}, {"adv", "r"}}

// synset is one WordNet synset: its words and the offsets it points to.
type synset struct {
	words  []string
	hypers []int64 // @: hypernyms (not instance hypernyms)
	hypos  []int64 // ~: hyponyms
}

// wordnet is what related reads: synsets by part of speech and offset,
// the synsets each word may stand for (see run), and how often each
// synset was tagged.
type wordnet struct {
	data  map[string]map[int64]*synset
	meant map[string]map[int64]bool
	used  map[int64]int
}

// sense is one sense of a lemma.
type sense struct {
	pos    string
	number int // 1-based within the part of speech
	offset int64
	count  int // times tagged in the corpus
}

func run(src, out string, p params) error {
	data := map[string]map[int64]*synset{}
	senses := map[string][]sense{} // normalised lemma → senses
	for _, ps := range poses {
		d, err := readData(filepath.Join(src, "data."+ps.name))
		if err != nil {
			return err
		}
		data[ps.tag] = d
		if err := readIndex(filepath.Join(src, "index."+ps.name), ps.tag, senses); err != nil {
			return err
		}
	}
	counts, err := readCounts(filepath.Join(src, "cntlist.rev"))
	if err != nil {
		return err
	}
	kept := map[string][]sense{}
	// meant says which synsets a word may stand for in a table entry: its
	// kept senses, or any sense when the word was never tagged, as such
	// rare words ("bike" never was) mislead little when they match.
	meant := map[string]map[int64]bool{}
	used := map[int64]int{} // synset → times any of its words was tagged with it
	for lemma, ss := range senses {
		total := 0
		for i := range ss {
			ss[i].count = counts[countKey{lemma, ss[i].pos, ss[i].number}]
			total += ss[i].count
			used[ss[i].key()] += ss[i].count
		}
		kept[lemma] = keep(ss, p)
		meant[lemma] = map[int64]bool{}
		for _, s := range ss {
			if total == 0 || slices.Contains(kept[lemma], s) {
				meant[lemma][s.key()] = true
			}
		}
	}
	table := map[string][]string{}
	for lemma, ss := range kept {
		if len(strings.Fields(lemma)) > p.words || lang.IsStop(lang.English, lemma) || isNumber(lemma) {
			continue
		}
		if items := related(lemma, ss, wordnet{data, meant, used}, p); len(items) > 0 {
			table[lemma] = items
		}
	}
	// Irregular forms ("mice", "ran") point at their lemma's entry; the
	// first part of speech's lemma wins.
	aliases := map[string]string{}
	for _, ps := range poses {
		exc, err := readExceptions(filepath.Join(src, ps.name+".exc"))
		if err != nil {
			return err
		}
		for form, lemma := range exc {
			if _, ok := aliases[form]; ok || table[form] != nil || table[lemma] == nil || len(strings.Fields(form)) > p.words {
				continue
			}
			aliases[form] = lemma
		}
	}
	for form, lemma := range aliases {
		table[form] = []string{"=" + lemma}
	}
	header := fmt.Sprintf("# en synonyms from WordNet 3.0 (wordnet-base %s), WordNet licence (see NOTICE); pos %s, senses %d, share %.2f, untagged %d, per %d, hyper %v, hypo %d; regenerate with scripts/gen-syn",
		debianVersion("wordnet-base"), p.pos, p.senses, p.share, p.untagged, p.per, p.hyper, p.hypo)
	size, err := write(filepath.Join(out, "en.tsv.gz"), header, table)
	if err != nil {
		return err
	}
	log.Printf("en.tsv.gz: %d keys (%d irregular forms), %d bytes", len(table), len(aliases), size)
	licence, err := readLicence(filepath.Join(src, "data.noun"))
	if err != nil {
		return err
	}
	notice := fmt.Sprintf(noticeText, debianVersion("wordnet-base"), licence)
	return os.WriteFile(filepath.Join(out, "NOTICE"), []byte(notice), 0o644)
}

// key identifies a synset across parts of speech (offsets are per file).
func (s sense) key() int64 { return s.offset*8 + int64(strings.Index("nvar", s.pos)) }

func isNumber(w string) bool {
	for _, r := range w {
		if (r < '0' || r > '9') && r != ' ' {
			return false
		}
	}
	return true
}

// keep picks the senses a reader most likely means by lemma, most
// frequent first.
func keep(ss []sense, p params) []sense {
	total := 0
	for _, s := range ss {
		total += s.count
	}
	var out []sense
	for _, s := range ss {
		if !strings.Contains(p.pos, s.pos) {
			continue
		}
		switch {
		case total == 0:
			if len(ss) <= p.untagged {
				out = append(out, s)
			}
		case s.number <= p.senses && float64(s.count) >= p.share*float64(total):
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].count > out[j].count })
	return out
}

// related lists the words of the kept senses' synsets, then (for nouns)
// their hypernyms marked "@" and hyponyms marked "~". A word is listed
// only when meant allows the synset for it, so the sense the two words
// share is a main sense of both ("happen" shares a synset with "go", but
// that is not what "go" usually means). Left out too: the
// lemma, repeats, numbers, words of one or two letters (roman numerals,
// abbreviations), words longer than p.words words, and compounds that
// contain the lemma ("solar day" for "day"), which only narrow it.
func related(lemma string, ss []sense, wn wordnet, p params) []string {
	data, meant := wn.data, wn.meant
	var out []string
	seen := map[string]bool{lemma: true}
	own := map[string]bool{}
	for _, w := range strings.Fields(lemma) {
		own[w] = true
	}
	add := func(mark string, words []string, key int64, max int) {
		n := 0
		for _, w := range words {
			if len(out) == p.per || n == max {
				return
			}
			if seen[w] || len(w) < 3 || isNumber(w) || len(strings.Fields(w)) > p.words || !meant[w][key] || shares(w, own) {
				continue
			}
			seen[w] = true
			out = append(out, mark+w)
			n++
		}
	}
	for _, s := range ss {
		if syn := data[s.pos][s.offset]; syn != nil {
			add("", syn.words, s.key(), -1)
		}
	}
	for _, s := range ss {
		syn := data[s.pos][s.offset]
		if syn == nil || s.pos != "n" {
			continue
		}
		if p.hyper {
			for _, h := range syn.hypers {
				if hs := data["n"][h]; hs != nil {
					add("@", hs.words, sense{pos: "n", offset: h}.key(), 2)
				}
			}
		}
		if p.hypo > 0 {
			// The most used kinds first: WordNet lists them in no order.
			hypos := slices.Clone(syn.hypos)
			sort.SliceStable(hypos, func(i, j int) bool {
				return wn.used[sense{pos: "n", offset: hypos[i]}.key()] > wn.used[sense{pos: "n", offset: hypos[j]}.key()]
			})
			n := 0
			for _, h := range hypos {
				if hs := data["n"][h]; hs != nil && n < p.hypo {
					before := len(out)
					add("~", hs.words, sense{pos: "n", offset: h}.key(), 1)
					n += len(out) - before
				}
			}
		}
	}
	return out
}

// shares reports whether a multi-word item contains one of the words.
func shares(item string, words map[string]bool) bool {
	for _, w := range strings.Fields(item) {
		if words[w] {
			return true
		}
	}
	return false
}

// norm turns a WordNet lemma ("ice_cream", "well-being", "big(a)") into
// the lowercased words a query would give, space separated.
func norm(w string) string {
	if i := strings.IndexByte(w, '('); i > 0 {
		w = w[:i] // adjective position marker
	}
	return strings.Join(lang.Words(strings.ReplaceAll(w, "_", " ")), " ")
}

// readData reads a data.* file: offset → synset.
func readData(path string) (map[int64]*synset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	out := map[int64]*synset{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == ' ' {
			continue // licence header
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 4 {
			return nil, fmt.Errorf("read %s: short line %q", path, line)
		}
		off, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		n, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil || len(f) < 4+2*int(n)+1 {
			return nil, fmt.Errorf("read %s: bad word count in %q", path, line)
		}
		s := &synset{}
		seen := map[string]bool{}
		for i := 0; i < int(n); i++ {
			if w := norm(f[4+2*i]); w != "" && !seen[w] {
				seen[w] = true
				s.words = append(s.words, w)
			}
		}
		at := 4 + 2*int(n)
		np, err := strconv.Atoi(f[at])
		if err != nil || len(f) < at+1+4*np {
			return nil, fmt.Errorf("read %s: bad pointer count in %q", path, line)
		}
		for i := 0; i < np; i++ {
			ptr := f[at+1+4*i : at+5+4*i]
			if ptr[3] != "0000" {
				continue // a lexical pointer, between words rather than senses
			}
			o, err := strconv.ParseInt(ptr[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", path, err)
			}
			switch ptr[0] {
			case "@":
				s.hypers = append(s.hypers, o)
			case "~":
				s.hypos = append(s.hypos, o)
			}
		}
		out[off] = s
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// readIndex reads an index.* file, appending each lemma's senses in
// WordNet's order.
func readIndex(path, pos string, senses map[string][]sense) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == ' ' {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 6 {
			return fmt.Errorf("read %s: short line %q", path, line)
		}
		nsyn, err1 := strconv.Atoi(f[2])
		nptr, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil || len(f) != 4+nptr+2+nsyn {
			return fmt.Errorf("read %s: bad line %q", path, line)
		}
		lemma := norm(f[0])
		for i, o := range f[len(f)-nsyn:] {
			off, err := strconv.ParseInt(o, 10, 64)
			if err != nil {
				return fmt.Errorf("read %s: %w", path, err)
			}
			senses[lemma] = append(senses[lemma], sense{pos: pos, number: i + 1, offset: off})
		}
	}
	return nil
}

type countKey struct {
	lemma, pos string
	number     int
}

// readCounts reads cntlist.rev: "lemma%ss_type:…  sense_number tag_count".
func readCounts(path string) (map[countKey]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	pos := map[byte]string{'1': "n", '2': "v", '3': "a", '4': "r", '5': "a"}
	out := map[countKey]int{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		pct := strings.IndexByte(f[0], '%')
		if pct <= 0 || pct+1 >= len(f[0]) {
			continue
		}
		num, err1 := strconv.Atoi(f[1])
		cnt, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("read %s: bad line %q", path, line)
		}
		out[countKey{norm(f[0][:pct]), pos[f[0][pct+1]], num}] += cnt
	}
	return out, nil
}

// readExceptions reads an *.exc file: irregular form → its first lemma.
func readExceptions(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		form, lemma := norm(f[0]), norm(f[1])
		if form != "" && lemma != "" && form != lemma {
			out[form] = lemma
		}
	}
	return out, nil
}

// readLicence returns the licence that heads every WordNet data file.
func readLicence(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() && strings.HasPrefix(sc.Text(), "  ") {
		// "  14 WordNet 3.0 Copyright …  " → "WordNet 3.0 Copyright …"
		f := strings.SplitN(strings.TrimSpace(sc.Text()), " ", 2)
		if len(f) == 2 {
			b.WriteString(strings.TrimSpace(f[1]))
		}
		b.WriteByte('\n')
	}
	return strings.TrimSpace(b.String()), sc.Err()
}

// write stores the table as sorted "key\titem\t…" lines, gzipped with a
// fixed header so the file is the same on every run, and returns its size.
func write(path, header string, t map[string][]string) (int, error) {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return 0, err
	}
	fmt.Fprintln(zw, header)
	for _, k := range keys {
		fmt.Fprintf(zw, "%s\t%s\n", k, strings.Join(t[k], "\t"))
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	return buf.Len(), nil
}

func debianVersion(pkg string) string {
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", pkg).Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

const noticeText = `Quire's English synonym table (en.tsv.gz in this folder)

The table is derived from WordNet 3.0 (https://wordnet.princeton.edu/),
as packaged by Debian in wordnet-base version %s, and is distributed
under WordNet's own licence, reproduced here as it requires:

%s

How it was made: scripts/gen-syn installs wordnet-base and runs
sidecar/lang/syn/gensyn, which reads the index, data, exception and
sense-count files (/usr/share/wordnet), keeps for each lemma of at most
two words the senses most likely meant (see gensyn's doc comment), lists
the other words of those synsets whose own main sense it is, maps
irregular forms to their lemma (marked "="), and writes the sorted,
gzipped table (its header line records the settings). Regenerate with:

    scripts/gen-syn
`
