package worker

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/search"
)

// Searcher ranks passages; *search.Searcher is one.
type Searcher interface {
	Query(ctx context.Context, query string, k int, ch search.Channel) (search.Result, error)
	// NoteCosines gives the notes closest in meaning to text their best
	// cosine, and the vault's dense floor (search.Searcher.NoteCosines).
	NoteCosines(ctx context.Context, text string) (map[string]float64, float64, error)
	// Far says whether a note is below the floor by those cosines.
	Far(cos map[string]float64, floor float64, path string) bool
}

// relatedPool is how many passages are ranked per page returned, so that a
// few long notes cannot fill the result.
const relatedPool = 5

// snippetBytes bounds a page's snippet: enough for the model to judge the
// connection, small enough to keep the prompt short.
const snippetBytes = 400

// Related returns the compiler's search for existing pages: the best
// passage per note, from channel ch (falling back to keywords when ch
// cannot serve), leaving out what sits in the generated folder's raw/,
// attachments/ and Inbox/ folders, which are sources, not pages.
func Related(s Searcher, ch search.Channel, folder string) func(ctx context.Context, query string, k int) ([]compile.Page, error) {
	skip := []string{}
	for _, f := range []string{"raw", "attachments", InboxFolder} {
		skip = append(skip, path.Join(folder, f)+"/")
	}
	return func(ctx context.Context, query string, k int) ([]compile.Page, error) {
		if k <= 0 {
			return nil, nil
		}
		res, err := s.Query(ctx, query, k*relatedPool, ch)
		if err != nil && ch != search.BM25 && ctx.Err() == nil {
			res, err = s.Query(ctx, query, k*relatedPool, search.BM25)
		}
		if err != nil {
			return nil, err
		}
		// A page no closer in meaning than chance is no connection: an
		// article on cast iron listed Canvas and Bases syntax (issue 25).
		// Only where the search embedded the query itself.
		var cos map[string]float64
		floor := 0.0
		if res.Channel != search.BM25 {
			if cos, floor, err = s.NoteCosines(ctx, query); err != nil {
				return nil, err
			}
		}
		var pages []compile.Page
		seen := map[string]bool{}
	passages:
		for _, p := range res.Passages {
			if s.Far(cos, floor, p.Path) {
				continue
			}
			for _, pre := range skip {
				if strings.HasPrefix(p.Path, pre) {
					continue passages
				}
			}
			if seen[p.Path] {
				continue
			}
			seen[p.Path] = true
			pages = append(pages, compile.Page{Path: p.Path, Title: p.Title, Heading: strings.Join(p.Headings, " > "), Snippet: clip(p.Text, snippetBytes), Score: p.Score})
			if len(pages) == k {
				break
			}
		}
		return pages, nil
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Exists returns the compiler's link check: a target is a page when it
// names, ignoring case, an indexed note by its path (with or without .md),
// its file name or its title, as Obsidian resolves a wikilink; or a note
// file that exists in the vault now (written since the last index pass).
// titles holds each indexed note's title by its path.
func Exists(vaultDir string, titles map[string]string) func(target string) bool {
	known := map[string]bool{}
	for p, title := range titles {
		lp := strings.ToLower(p)
		known[lp] = true
		known[strings.TrimSuffix(lp, ".md")] = true
		known[strings.TrimSuffix(path.Base(lp), ".md")] = true
		if title != "" {
			known[strings.ToLower(title)] = true
		}
	}
	return func(target string) bool {
		t := strings.TrimSpace(target)
		if i := strings.IndexAny(t, "#|"); i >= 0 {
			t = t[:i] // [[Page#Heading|alias]] names Page
		}
		if t == "" {
			return false
		}
		if known[strings.ToLower(t)] {
			return true
		}
		rel := filepath.FromSlash(t)
		if !strings.HasSuffix(strings.ToLower(rel), ".md") {
			rel += ".md"
		}
		if !filepath.IsLocal(rel) {
			return false
		}
		for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
			if strings.HasPrefix(part, ".") {
				return false // dot folders are never pages
			}
		}
		st, err := os.Stat(filepath.Join(vaultDir, rel))
		return err == nil && st.Mode().IsRegular()
	}
}
