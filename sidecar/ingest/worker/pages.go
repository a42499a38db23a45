package worker

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/search"
)

// Relater ranks the notes closest to a text: at most k, their best
// passage each, none that f leaves out (before the cut to k) and none no
// closer in meaning than chance; engine.Engine.Related is the one search
// that does it, for the Related panel as for ingest.
type Relater func(ctx context.Context, text string, k int, f search.Filter) ([]search.Passage, error)

// snippetBytes bounds a page's snippet: enough for the model to judge the
// connection, small enough to keep the prompt short.
const snippetBytes = 400

// Related returns the compiler's search for existing pages through r,
// leaving out, before its cut, what the compiler says and what sits in
// the generated folder's raw/, attachments/ and Inbox/ folders, which are
// sources, not pages.
func Related(r Relater, folder string) compile.Related {
	var sources []string
	for _, f := range []string{"raw", "attachments", InboxFolder} {
		sources = append(sources, path.Join(folder, f)+"/")
	}
	return func(ctx context.Context, query string, k int, leave compile.Leave) ([]compile.Page, error) {
		if k <= 0 || strings.TrimSpace(query) == "" {
			return nil, nil
		}
		ps, err := r(ctx, query, k, search.Filter{Exclude: slices.Concat(sources, leave.Folders), ExcludeNotes: leave.Notes})
		if err != nil {
			return nil, err
		}
		pages := make([]compile.Page, len(ps))
		for i, p := range ps {
			pages[i] = compile.Page{Path: p.Path, Title: p.Title, Headings: p.Headings, Snippet: clip(p.Text, snippetBytes), Score: p.Score}
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
