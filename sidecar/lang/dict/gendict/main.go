// Command gendict builds Quire's bilingual word lists (it↔en, es↔en,
// cs↔en) from the FreeDict dictionaries that Debian ships in dictd format
// (/usr/share/dictd/freedict-*.index and .dict.dz), and writes them as
// plain sorted tables beside package dict, which embeds and bisects them
// as they are. Run it through scripts/gen-dict.
//
// Each direction merges the dictionary in that direction with the inverse
// of the dictionary the other way (FreeDict has no Czech-English list of
// any size, so cs→en is mostly eng-ces read backwards). A translation's
// score adds what every dictionary says for it (earlier senses count more)
// to how common the translated word looks (whether the small basic
// dictionaries know it, how many entries name it in the large one), since
// the sources list a sense's words alphabetically, not by use.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/lang/dict"
)

// perKey is how many translations a table keeps for each word.
const perKey = 3

func main() {
	src := flag.String("src", "/usr/share/dictd", "folder with the freedict-*.index and .dict.dz files")
	out := flag.String("out", "sidecar/lang/dict", "folder to write the tables to")
	extra := flag.String("extra", "lang/dict/gendict/software.tsv", "Quire's own vocabulary, put first")
	flag.Parse()
	if err := run(*src, *out, *extra); err != nil {
		log.Fatal(err)
	}
}

// entry is one dictionary article: a headword and its senses, each a list
// of translations.
type entry struct {
	head   string
	pos    string // part of speech, where the source gives one ("n", "v", "adj")
	senses [][]string
}

// source is one parsed dictionary.
type source struct {
	name    string // e.g. "ita-eng"
	edition string
	entries []entry
	ordered bool // senses are numbered by importance (the Ergane-based ones)
}

func run(src, out, extraPath string) error {
	names := []string{"ita-eng", "eng-ita", "spa-eng", "eng-spa", "ces-eng", "eng-ces", "deu-eng", "eng-deu"}
	extra, err := readExtra(extraPath)
	if err != nil {
		return err
	}
	dicts := map[string]*source{}
	for _, n := range names {
		s, err := readDict(src, n)
		if err != nil {
			return err
		}
		dicts[n] = s
		log.Printf("%s %s: %d entries", n, s.edition, len(s.entries))
	}
	vocab := vocabularies(dicts)
	common := commonness(dicts)

	var notice strings.Builder
	for _, d := range []struct {
		from, to lang.Lang
		direct   string
		inverse  string
	}{
		{lang.Italian, lang.English, "ita-eng", "eng-ita"},
		{lang.English, lang.Italian, "eng-ita", "ita-eng"},
		{lang.Spanish, lang.English, "spa-eng", "eng-spa"},
		{lang.English, lang.Spanish, "eng-spa", "spa-eng"},
		{lang.Czech, lang.English, "ces-eng", "eng-ces"},
		{lang.English, lang.Czech, "eng-ces", "ces-eng"},
		{lang.German, lang.English, "deu-eng", "eng-deu"},
		{lang.English, lang.German, "eng-deu", "deu-eng"},
	} {
		t := build(d.from, d.to, dicts[d.direct], dicts[d.inverse], vocab, common)
		if d.from == lang.German {
			dropLong(t)
		}
		putFirst(t, d.from, extra.pairs(d.from, d.to))
		file := fmt.Sprintf("%s-%s.tsv", d.from, d.to)
		licence := "GPL-2.0-or-later"
		if d.from == lang.German || d.to == lang.German {
			licence = "GPL-3.0-or-later and AGPL-3.0-or-later (Ding via FreeDict)"
		}
		header := fmt.Sprintf("# %s→%s from FreeDict %s %s and %s %s (inverted), %s, after Quire's own vocabulary (AGPL-3.0); regenerate with scripts/gen-dict",
			d.from, d.to, d.direct, dicts[d.direct].edition, d.inverse, dicts[d.inverse].edition, licence)
		n, size, err := write(filepath.Join(out, file), header, t)
		if err != nil {
			return err
		}
		log.Printf("%s: %d words, %d stems, %d bytes", file, n, len(t)-n, size)
	}
	notice.WriteString(noticeHead)
	for _, n := range names {
		fmt.Fprintf(&notice, "- FreeDict %s, edition %s (%d articles), from the Debian package\n  dict-freedict-%s %s\n",
			n, dicts[n].edition, len(dicts[n].entries), n, debianVersion("dict-freedict-"+n))
	}
	notice.WriteString(noticeTail)
	return os.WriteFile(filepath.Join(out, "NOTICE"), []byte(notice.String()), 0o644)
}

// readDict reads a dictd index and its dictzip data (a gzip stream).
func readDict(dir, name string) (*source, error) {
	base := filepath.Join(dir, "freedict-"+name)
	idx, err := os.ReadFile(base + ".index")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	f, err := os.Open(base + ".dict.dz")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	s := &source{name: name, ordered: name != "eng-ces"}
	sc := bufio.NewScanner(bytes.NewReader(idx))
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			continue
		}
		off, size := b64(fields[1]), b64(fields[2])
		if off+size > len(data) {
			return nil, fmt.Errorf("read %s: entry %q past the end of the data", name, fields[0])
		}
		text := string(data[off : off+size])
		if strings.HasPrefix(fields[0], "00database") || strings.HasPrefix(fields[0], "00-database") {
			if m := editionRe.FindStringSubmatch(text); m != nil {
				s.edition = m[1]
			}
			continue
		}
		if e, ok := parseEntry(text); ok {
			s.entries = append(s.entries, e)
		}
	}
	if s.edition == "" {
		// The edition sits in the database info article's text.
		if m := editionRe.FindSubmatch(data); m != nil {
			s.edition = string(m[1])
		}
	}
	return s, sc.Err()
}

var editionRe = regexp.MustCompile(`(?m)^Edition: *(\S+)`)

// b64 decodes dictd's base-64 offsets.
func b64(s string) int {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	n := 0
	for _, c := range s {
		n = n*64 + strings.IndexRune(digits, c)
	}
	return n
}

var (
	pronRe   = regexp.MustCompile(`/[^/]*/`)
	angleRe  = regexp.MustCompile(`<[^>]*>`)
	squareRe = regexp.MustCompile(`\[[^\]]*\]`)
	braceRe  = regexp.MustCompile(`\{[^}]*\}`)
	senseRe  = regexp.MustCompile(`^\d+\.\s+`)
)

// parseEntry reads one article: the headword line (with pronunciation
// between slashes and a part of speech in angle brackets), then one line
// per sense, numbered or not, translations separated by commas. Indented
// lines are notes and usage examples.
func parseEntry(text string) (entry, bool) {
	lines := strings.Split(text, "\n")
	first := pronRe.ReplaceAllString(lines[0], "")
	var pos string
	if m := angleRe.FindString(first); m != "" {
		pos = strings.Trim(m, "<>")
	}
	head := strings.TrimSpace(angleRe.ReplaceAllString(first, ""))
	e := entry{head: normalise(head), pos: pos}
	for _, ln := range lines[1:] {
		if strings.TrimSpace(ln) == "" || strings.HasPrefix(ln, "   ") || strings.HasPrefix(ln, " see:") {
			continue
		}
		ln = strings.TrimSpace(ln)
		ln = senseRe.ReplaceAllString(ln, "")
		ln = squareRe.ReplaceAllString(ln, "")
		ln = braceRe.ReplaceAllString(ln, "")
		ln = angleRe.ReplaceAllString(ln, "")
		ln = stripParens(ln)
		var sense []string
		for _, t := range strings.FieldsFunc(ln, func(r rune) bool { return r == ',' || r == ';' }) {
			if t = normalise(t); t != "" {
				sense = append(sense, t)
			}
		}
		if len(sense) > 0 {
			e.senses = append(e.senses, sense)
		}
	}
	return e, e.head != "" && len(e.senses) > 0
}

// stripParens removes parenthesised glosses, nested ones included.
func stripParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// normalise lowercases a headword or translation, unifies hyphens and
// apostrophes, and drops ellipses, quotes and end punctuation.
func normalise(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("‐", "-", "‑", "-", "’", "'", "...", " ", "…", " ", "\"", "", "“", "", "”", "", "„", "", "\\", "",
		"?", "", "!", "", "¿", "", "¡", "", "*", "", "~", "").Replace(s)
	f := strings.Fields(s)
	// Ding writes German verbs with their objects' placeholders ("etw.
	// sichern", "sich jdm. anschließen"): the verb is the headword.
	for len(f) > 1 && placeholders[f[0]] {
		f = f[1:]
	}
	s = strings.Join(f, " ")
	return strings.Trim(s, " .:-'")
}

var placeholders = map[string]bool{
	"etw.": true, "jdn.": true, "jdm.": true, "jds.": true, "sich": true,
	"etw./jdn.": true, "jdn./etw.": true, "jdm./etw.": true, "etw./jdm.": true,
}

// singleWord reports whether s is one word as lang.Words splits a query.
func singleWord(s string) bool {
	w := lang.Words(s)
	return len(w) == 1 && w[0] == s
}

// wordCount is the number of query words in s.
func wordCount(s string) int { return len(lang.Words(s)) }

// vocabularies collects, per language, the single words the dictionaries
// use as headwords, to spot translations whose spaces the conversion lost
// ("nextto", "tomarenconsideración").
func vocabularies(dicts map[string]*source) map[lang.Lang]map[string]bool {
	v := map[lang.Lang]map[string]bool{}
	add := func(l lang.Lang, w string) {
		if v[l] == nil {
			v[l] = map[string]bool{}
		}
		v[l][w] = true
	}
	for name, d := range dicts {
		from := codeLang(name[:3])
		for _, e := range d.entries {
			for _, w := range lang.Words(e.head) {
				add(from, w)
			}
		}
		// eng-ces writes its Czech side with spaces intact.
		if name == "eng-ces" {
			for _, e := range d.entries {
				for _, s := range e.senses {
					for _, t := range s {
						for _, w := range lang.Words(t) {
							add(lang.Czech, w)
						}
					}
				}
			}
		}
	}
	return v
}

// glued reports whether w is not a known word but splits into two or more
// known words of at least two letters.
func glued(w string, vocab map[string]bool) bool {
	if vocab[w] {
		return false
	}
	r := []rune(w)
	ok := make([]int, len(r)+1) // ok[i]: pieces needed to cover r[:i], 0 = impossible
	ok[0] = 0
	reach := make([]bool, len(r)+1)
	reach[0] = true
	for i := 0; i < len(r); i++ {
		if !reach[i] {
			continue
		}
		for j := i + 2; j <= len(r); j++ {
			if vocab[string(r[i:j])] {
				reach[j] = true
				if ok[i]+1 > ok[j] {
					ok[j] = ok[i] + 1
				}
			}
		}
	}
	return reach[len(r)] && ok[len(r)] >= 2
}

func codeLang(c string) lang.Lang {
	return lang.Parse(c)
}

// commonness scores how common a word of each language looks, in [0, 1]:
// whether the small general dictionaries (a few thousand basic words each)
// know it, and how many articles of the large eng-ces dictionary name it.
func commonness(dicts map[string]*source) map[lang.Lang]map[string]float64 {
	basic := map[lang.Lang]map[string]int{}
	large := map[lang.Lang]map[string]int{}
	inc := func(m map[lang.Lang]map[string]int, l lang.Lang, w string) {
		if m[l] == nil {
			m[l] = map[string]int{}
		}
		m[l][w]++
	}
	for name, d := range dicts {
		if strings.Contains(name, "deu") {
			// Ding is neither a small basic dictionary nor a one-way
			// list like eng-ces: counting its half a million articles
			// would reorder the other languages' senses.
			continue
		}
		from, to := codeLang(name[:3]), codeLang(name[4:])
		for _, e := range d.entries {
			if name == "eng-ces" {
				inc(large, from, e.head)
				for _, s := range e.senses {
					for _, t := range s {
						inc(large, to, t)
					}
				}
				continue
			}
			inc(basic, from, e.head)
			for _, s := range e.senses {
				for _, t := range s {
					inc(basic, to, t)
				}
			}
		}
	}
	out := map[lang.Lang]map[string]float64{}
	for _, l := range []lang.Lang{lang.English, lang.Italian, lang.Spanish, lang.Czech, lang.German} {
		out[l] = map[string]float64{}
		for w, n := range basic[l] {
			out[l][w] += 0.5 * math.Min(1, float64(n)/2)
		}
		for w, n := range large[l] {
			if l == lang.English {
				// English headwords with many articles are the common,
				// polysemous words.
				out[l][w] += 0.5 * math.Min(1, math.Log2(1+float64(n))/4)
			} else {
				// A Czech word that many English headwords translate to
				// is a vague one (úskok: craft, dodge, ruse, scheme…);
				// one that few do is the plain word for them (hra).
				out[l][w] += 0.5 / float64(n)
			}
		}
	}
	return out
}

// build makes the from→to table: every single-word headword of from, and
// for every stem of from the merged translations of its words under the
// key "~"+stem.
func build(from, to lang.Lang, direct, inverse *source, vocab map[lang.Lang]map[string]bool, common map[lang.Lang]map[string]float64) map[string][]string {
	scores := map[string]map[string]float64{}
	add := func(key, tr string, w float64) {
		if !singleWord(key) || lang.IsStop(from, key) {
			return
		}
		if wordCount(tr) > 3 || wordCount(tr) == 0 {
			return
		}
		if singleWord(tr) && glued(tr, vocab[to]) {
			return
		}
		if wordCount(tr) > 1 {
			w *= 0.5
		}
		if scores[key] == nil {
			scores[key] = map[string]float64{}
		}
		scores[key][tr] += w
	}
	// Unordered sources (eng-ces) have no sense ranks; there a noun
	// reading counts more than a verb or adjective one, since searches
	// are mostly nouns ("game": hra, not chromý as in "a game leg").
	senseWeight := func(s *source, e entry, i int) float64 {
		if !s.ordered {
			if e.pos == "" || e.pos == "n" || e.pos == "pl" {
				return 0.5
			}
			return 0.35
		}
		return 1 / float64(1+i)
	}
	for _, e := range direct.entries {
		for i, s := range e.senses {
			for _, t := range s {
				add(e.head, t, senseWeight(direct, e, i))
			}
		}
	}
	for _, e := range inverse.entries {
		if !singleWord(e.head) && wordCount(e.head) > 2 {
			continue
		}
		for i, s := range e.senses {
			for _, t := range s {
				add(t, e.head, senseWeight(inverse, e, i))
			}
		}
	}

	table := map[string][]string{}
	byStem := map[string]map[string]float64{}
	// Keys in order: the stems' sums below are of floats, whose total
	// depends on the order they are added in, and a tie broken one way on
	// one run and the other way on the next would change the tables.
	for _, key := range slices.Sorted(maps.Keys(scores)) {
		trs := scores[key]
		for tr := range trs {
			trs[tr] += 0.5 * common[to][tr]
		}
		table[key] = top(trs, perKey)
		st := lang.Stem(from, key)
		if byStem[st] == nil {
			byStem[st] = map[string]float64{}
		}
		for tr, s := range trs {
			byStem[st][tr] += s
		}
	}
	for st, trs := range byStem {
		table["~"+st] = top(trs, perKey)
	}
	return table
}

// maxGermanKey is the longest German key kept, in letters. Ding lists
// half a million headwords, most of them compounds nobody types as a
// query; the compounds of up to 12 letters ("Einstellung",
// "Tastenkürzel") keep the table at half its size (8.7 MB, not 17 MB).
const maxGermanKey = 12

// dropLong removes keys longer than maxGermanKey letters.
func dropLong(t map[string][]string) {
	for k := range t {
		if utf8.RuneCountInString(strings.TrimPrefix(k, "~")) > maxGermanKey {
			delete(t, k)
		}
	}
}

// extraVocab is Quire's own vocabulary: rows of one concept, columns of
// languages, alternatives commonest first.
type extraVocab struct {
	langs []lang.Lang
	rows  [][][]string // row → column → alternatives
}

func readExtra(path string) (*extraVocab, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	v := &extraVocab{}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if v.langs == nil {
			for _, c := range cols {
				l := lang.Parse(c)
				if l == lang.Unknown {
					return nil, fmt.Errorf("read %s: unknown language %q in the header", path, c)
				}
				v.langs = append(v.langs, l)
			}
			continue
		}
		if len(cols) != len(v.langs) {
			return nil, fmt.Errorf("read %s: %q has %d columns, want %d", path, line, len(cols), len(v.langs))
		}
		row := make([][]string, len(cols))
		for i, c := range cols {
			for _, a := range strings.Split(c, "|") {
				if a = normalise(a); a != "" {
					row[i] = append(row[i], a)
				}
			}
		}
		v.rows = append(v.rows, row)
	}
	return v, nil
}

// pairs returns, for each single word of from in the vocabulary, its
// translations into to, in the vocabulary's order.
func (v *extraVocab) pairs(from, to lang.Lang) map[string][]string {
	fi, ti := slices.Index(v.langs, from), slices.Index(v.langs, to)
	out := map[string][]string{}
	if fi < 0 || ti < 0 {
		return out
	}
	for _, row := range v.rows {
		for _, w := range row[fi] {
			if !singleWord(w) || lang.IsStop(from, w) {
				continue
			}
			for _, tr := range row[ti] {
				if wordCount(tr) <= 3 && !slices.Contains(out[w], tr) {
					out[w] = append(out[w], tr)
				}
			}
		}
	}
	return out
}

// putFirst puts the vocabulary's translations first, before the
// dictionaries', for each of its words, for every word of the table with
// the same stem (an inflected form: "poznámky" like "poznámka") and for
// that stem's key.
func putFirst(t map[string][]string, from lang.Lang, extra map[string][]string) {
	byStem := map[string][]string{}
	stemWords := map[string][]string{}
	// Words in order, so the merged translations of a stem come out in the
	// same order on every run.
	for _, w := range slices.Sorted(maps.Keys(extra)) {
		trs := extra[w]
		st := lang.Stem(from, w)
		stemWords[st] = append(stemWords[st], w)
		for _, tr := range trs {
			if !slices.Contains(byStem[st], tr) {
				byStem[st] = append(byStem[st], tr)
			}
		}
	}
	merge := func(key string, first []string) {
		out := append([]string{}, first...)
		for _, tr := range t[key] {
			if !slices.Contains(out, tr) {
				out = append(out, tr)
			}
		}
		if len(out) > perKey {
			out = out[:perKey]
		}
		t[key] = out
	}
	for key := range t {
		if strings.HasPrefix(key, "~") {
			continue
		}
		if first, ok := extra[key]; ok {
			merge(key, first)
		} else if st := lang.Stem(from, key); byStem[st] != nil && inflected(key, stemWords[st]) {
			merge(key, byStem[st])
		}
	}
	for w, first := range extra {
		if _, ok := t[w]; !ok {
			merge(w, first)
		}
	}
	for st, first := range byStem {
		merge("~"+st, first)
	}
}

// inflected reports whether key looks like an inflected form of one of
// words, which share its stem: at most two letters longer or shorter.
// The Snowball stemmers strip derivational suffixes too, and
// "accountant" is not a form of "account".
func inflected(key string, words []string) bool {
	n := utf8.RuneCountInString(key)
	for _, w := range words {
		if d := n - utf8.RuneCountInString(w); d >= -2 && d <= 2 {
			return true
		}
	}
	return false
}

// top returns the n best-scored translations; ties go to the shorter
// word (common words are short), then by spelling.
func top(m map[string]float64, n int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		if len(out[i]) != len(out[j]) {
			return len(out[i]) < len(out[j])
		}
		return out[i] < out[j]
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// write stores the table as sorted "key\ttranslation\t…" lines after a
// fixed header, so the file is the same on every run, and beside it the
// same text packed (dict.Pack), which the binary embeds. It returns the
// number of word keys and the file size.
func write(path, header string, t map[string][]string) (int, int, error) {
	keys := make([]string, 0, len(t))
	words := 0
	for k := range t {
		keys = append(keys, k)
		if !strings.HasPrefix(k, "~") {
			words++
		}
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	fmt.Fprintln(&buf, header)
	for _, k := range keys {
		fmt.Fprintf(&buf, "%s\t%s\n", k, strings.Join(t[k], "\t"))
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return 0, 0, fmt.Errorf("write %s: %w", path, err)
	}
	// The binary embeds the packed form; the .tsv stays for diffs and
	// for TestPacked, which checks the two agree.
	packed, err := dict.Pack(buf.String())
	if err != nil {
		return 0, 0, fmt.Errorf("pack %s: %w", path, err)
	}
	pack := strings.TrimSuffix(path, ".tsv") + ".pack"
	if err := os.WriteFile(pack, packed, 0o644); err != nil {
		return 0, 0, fmt.Errorf("write %s: %w", pack, err)
	}
	return words, buf.Len(), nil
}

// debianVersion is the installed version of a Debian package, or "" when
// dpkg cannot tell.
func debianVersion(pkg string) string {
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", pkg).Output()
	if err != nil {
		return ""
	}
	return "version " + strings.TrimSpace(string(out))
}

const noticeHead = `Quire's bilingual word lists (*.tsv in this folder, and *.pack, the
same tables compressed)

These tables are derived from the FreeDict dictionaries listed below
(https://freedict.org/, "Copyright (C) 1999-2019 by various authors",
FreeDict contributors 2000-2022). The Italian, Spanish and Czech ones are
available under the GNU General Public License version 2.0 or (at your
option) any later version (GPL-2.0-or-later); the German ones (FreeDict's
conversion of the Ding dictionary by Frank Richter, TU Chemnitz) under
the GPL version 3 and the GNU Affero General Public License version 3
(GPL-3.0-or-later, AGPL-3.0-or-later; Ding itself is GPL-2.0-or-later), as
their own headers and Debian's copyright file state. The derived tables
are distributed under the same terms, which combine with Quire's
AGPL-3.0. No GPL-2.0-only source (such as Debian's Apertium bilingual
dictionaries) was used.

Before the dictionaries' translations, each table puts those of Quire's
own list of everyday software and note-taking words
(sidecar/lang/dict/gendict/software.tsv), written by Quire's authors and
distributed under Quire's AGPL-3.0.

Sources:
`

const noticeTail = `
How they were made: scripts/gen-dict installs the packages above and runs
sidecar/lang/dict/gendict, which parses the dictd files
(/usr/share/dictd/freedict-*.index and .dict.dz), keeps single-word
headwords, strips grammar notes, parenthesised glosses and field labels,
merges each dictionary with the inverse of the one in the other direction,
keeps the best three translations per word and per stem (stems from
package lang), puts Quire's own vocabulary first, and writes the sorted
tables. Regenerate with:

    scripts/gen-dict
`
