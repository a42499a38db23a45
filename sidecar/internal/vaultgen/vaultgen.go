// Package vaultgen writes a deterministic synthetic vault for benchmarks:
// notes with frontmatter, headings, paragraphs, lists, tables, code and
// wikilinks, with Zipf-distributed words so term statistics look real.
package vaultgen

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
)

// Options size the vault.
type Options struct {
	Notes int
	Seed  int64
}

var folders = []string{"Projects", "Areas/Health", "Areas/Home", "Reading", "Journal/2025", "Journal/2026", "Work/Meetings", "Ideas", "Recipes", "Travel"}

// Query is a generated search: a few words taken from one note.
type Query struct {
	Query    string   `json:"query"`
	Expected []string `json:"expected_notes"`
}

// stopRank: the synthetic language's most frequent words play the part
// of stop words, which a real language's analyzer would drop from queries.
const stopRank = 100

// Queries returns n deterministic queries over a vault made by Write with
// the given vault seed: each is three to five of one note's words, none
// of them among the language's most frequent, expecting that note.
func Queries(dir string, paths []string, n int, vaultSeed, seed int64) ([]Query, error) {
	vocab := vocabulary(rand.New(rand.NewSource(vaultSeed)), 20000)
	stop := map[string]bool{}
	for _, w := range vocab[:stopRank] {
		stop[w] = true
	}
	r := rand.New(rand.NewSource(seed))
	var out []Query
	for len(out) < n && len(paths) > 0 {
		p := paths[r.Intn(len(paths))]
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		_, body, _ := strings.Cut(string(data), "\n---\n")
		var words []string
		for _, w := range strings.FieldsFunc(body, func(c rune) bool { return !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') }) {
			if w = strings.ToLower(w); !stop[w] {
				words = append(words, w)
			}
		}
		if len(words) < 10 {
			continue
		}
		k := 3 + r.Intn(3)
		var q []string
		for i := 0; i < k; i++ {
			q = append(q, words[r.Intn(len(words))])
		}
		out = append(out, Query{Query: strings.Join(q, " "), Expected: []string{p}})
	}
	return out, nil
}

// Write creates the vault under dir. The same options always give the same
// bytes. It returns the vault-relative paths written.
func Write(dir string, o Options) ([]string, error) {
	r := rand.New(rand.NewSource(o.Seed))
	words := vocabulary(r, 20000)
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(words)-1))
	word := func() string { return words[zipf.Uint64()] }
	sentence := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = word()
		}
		ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
		return strings.Join(ws, " ") + "."
	}
	paragraph := func() string {
		var ss []string
		for i := 0; i < 2+r.Intn(5); i++ {
			ss = append(ss, sentence(6+r.Intn(18)))
		}
		return strings.Join(ss, " ")
	}
	titles := make([]string, o.Notes)
	for i := range titles {
		titles[i] = fmt.Sprintf("%s %s %d", title(word()), word(), i)
	}
	var paths []string
	for i := 0; i < o.Notes; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntags: [%s, %s]\n", word(), word())
		if r.Intn(5) == 0 {
			fmt.Fprintf(&b, "aliases: [%s]\n", word()+" "+word())
		}
		fmt.Fprintf(&b, "created: 2025-%02d-%02d\n---\n# %s\n\n%s\n", 1+r.Intn(12), 1+r.Intn(28), titles[i], paragraph())
		for s := 0; s < 1+r.Intn(5); s++ {
			fmt.Fprintf(&b, "\n## %s %s\n\n", title(word()), word())
			for p := 0; p < 1+r.Intn(3); p++ {
				switch r.Intn(10) {
				case 0:
					fmt.Fprintf(&b, "- %s\n- %s\n- see [[%s]]\n\n", sentence(5), sentence(7), titles[r.Intn(o.Notes)])
				case 1:
					fmt.Fprintf(&b, "```\n%s = %s(%s)\n```\n\n", word(), word(), word())
				case 2:
					fmt.Fprintf(&b, "| %s | %s |\n|---|---|\n| %d | %s |\n\n", word(), word(), r.Intn(100), word())
				default:
					fmt.Fprintf(&b, "%s See [[%s]].\n\n", paragraph(), titles[r.Intn(o.Notes)])
				}
			}
		}
		rel := filepath.ToSlash(filepath.Join(folders[i%len(folders)], titles[i]+".md"))
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, rel)
	}
	return paths, nil
}

// vocabulary makes n pronounceable distinct words.
func vocabulary(r *rand.Rand, n int) []string {
	cons := "bcdfghjklmnprstvz"
	vows := "aeiou"
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for s := 0; s < 1+r.Intn(3); s++ {
			b.WriteByte(cons[r.Intn(len(cons))])
			b.WriteByte(vows[r.Intn(len(vows))])
			if r.Intn(3) == 0 {
				b.WriteByte(cons[r.Intn(len(cons))])
			}
		}
		w := b.String()
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// title capitalises a generated word's first letter (the words are ASCII).
func title(w string) string {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return w
	}
	return string(w[0]-'a'+'A') + w[1:]
}
