package bm25

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Filter narrows a search to the passages of notes in one folder and with
// one tag. The zero value lets everything through.
type Filter struct {
	// Folder is a vault-relative folder: only notes under it (at any
	// depth) pass. Compared as written, like the vault's paths. A
	// source's folder is named by its key ("ops:runbooks"), a whole
	// source by its id and a colon ("ops:").
	Folder string
	// Tag passes notes with the tag or one nested under it ("garden"
	// passes "garden/herbs"); a leading "#" and case are ignored, as
	// Obsidian ignores them.
	Tag string
	// Exclude lists vault-relative folders whose notes (at any depth) do
	// not pass, whatever Folder and Tag say: an archive a reader wants
	// left out of related notes but still searchable.
	Exclude []string
	// ExcludeNotes lists vault-relative note paths that do not pass,
	// whatever Folder and Tag say: a search for a note's neighbours
	// leaves out notes that are no neighbours, before the cut to k.
	ExcludeNotes []string
	// Note is a vault-relative note path: only its passages pass (a
	// question about this note).
	Note string
}

// excluded is the filter's excluded folders as path prefixes ("Archive/").
func (f Filter) excluded() []string {
	var out []string
	for _, e := range f.Exclude {
		if d := asPrefix(e); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// asPrefix is a folder as typed ("Kitchen", "/Kitchen/", "ops:runbooks")
// as the prefix of its notes' keys ("Kitchen/", "ops:runbooks/"); a
// whole source ("ops:") is the prefix of all its notes.
func asPrefix(folder string) string {
	d := strings.Trim(strings.TrimSpace(folder), "/")
	switch {
	case d == "":
		return ""
	case strings.HasSuffix(d, ":"):
		return d
	}
	return d + "/"
}

// folder is the filter's folder as a path prefix ("Kitchen/"), or "".
func (f Filter) folder() string { return asPrefix(f.Folder) }

// NormalTag is a tag as typed or stored ("#Garden", "garden/") in the
// form compared: "garden".
func NormalTag(t string) string {
	return strings.ToLower(strings.TrimRight(strings.TrimLeft(strings.TrimSpace(t), "#"), "/"))
}

// IsZero reports whether the filter lets everything through.
func (f Filter) IsZero() bool {
	return f.folder() == "" && NormalTag(f.Tag) == "" && len(f.excluded()) == 0 && len(f.ExcludeNotes) == 0 && f.Note == ""
}

// PassesPath reports whether a note path is the filter's note (when it
// names one), inside its folder and outside its excluded folders and
// notes; the tag is not checked (the path does not say).
func (f Filter) PassesPath(path string) bool {
	if f.Note != "" && path != f.Note || slices.Contains(f.ExcludeNotes, path) {
		return false
	}
	for _, e := range f.excluded() {
		if strings.HasPrefix(path, e) {
			return false
		}
	}
	d := f.folder()
	return d == "" || strings.HasPrefix(path, d)
}

// filterQuery is the filter as a query that only selects (boost 0: it adds
// nothing to a passage's score). ok is false when no indexed tag matches
// the filter's tag: then nothing can pass. A nil query with ok true means
// no filter.
func (x *Index) filterQuery(f Filter) (q query.Query, ok bool, err error) {
	var parts []query.Query
	if f.Note != "" {
		n := query.NewTermQuery(f.Note)
		n.SetField("path")
		n.SetBoost(0)
		parts = append(parts, n)
	}
	if d := f.folder(); d != "" {
		p := query.NewPrefixQuery(d)
		p.SetField("path")
		p.SetBoost(0)
		parts = append(parts, p)
	}
	if t := NormalTag(f.Tag); t != "" {
		// The tags field keeps tags as written, so the filter is the
		// disjunction of the indexed spellings that match it, read from
		// the field's dictionary (a vault has hundreds of tags, not
		// millions): case-blind, nested tags included, no reindex.
		terms, err := x.tagTerms(t)
		if err != nil {
			return nil, false, err
		}
		if len(terms) == 0 {
			return nil, false, nil
		}
		var any []query.Query
		for _, term := range terms {
			tq := query.NewTermQuery(term)
			tq.SetField("tags")
			tq.SetBoost(0)
			any = append(any, tq)
		}
		dq := query.NewDisjunctionQuery(any)
		dq.SetBoost(0)
		parts = append(parts, dq)
	}
	if ex := f.excluded(); len(ex) > 0 || len(f.ExcludeNotes) > 0 {
		// Must not lie under an excluded folder nor be an excluded note.
		// Bleve needs something to subtract from: every passage, at
		// boost 0.
		var not []query.Query
		for _, e := range ex {
			p := query.NewPrefixQuery(e)
			p.SetField("path")
			p.SetBoost(0)
			not = append(not, p)
		}
		for _, n := range f.ExcludeNotes {
			p := query.NewTermQuery(n)
			p.SetField("path")
			p.SetBoost(0)
			not = append(not, p)
		}
		all := query.NewMatchAllQuery()
		all.SetBoost(0)
		bq := query.NewBooleanQuery([]query.Query{all}, nil, not)
		bq.SetBoost(0)
		parts = append(parts, bq)
	}
	switch len(parts) {
	case 0:
		return nil, true, nil
	case 1:
		return parts[0], true, nil
	}
	cq := query.NewConjunctionQuery(parts)
	cq.SetBoost(0)
	return cq, true, nil
}

// tagTerms returns the indexed tags equal to tag or nested under it, once
// normalised.
func (x *Index) tagTerms(tag string) ([]string, error) {
	d, err := x.b.FieldDict("tags")
	if err != nil {
		return nil, fmt.Errorf("read tags: %w", err)
	}
	defer d.Close()
	var out []string
	for {
		e, err := d.Next()
		if err != nil {
			return nil, fmt.Errorf("read tags: %w", err)
		}
		if e == nil {
			return out, nil
		}
		n := NormalTag(e.Term)
		if n == tag || strings.HasPrefix(n, tag+"/") {
			out = append(out, e.Term)
		}
	}
}

// SearchFiltered is SearchPrefer over the passages that pass f only: the
// filter is part of the query, so k passing passages come back whenever k
// exist, however far down the unfiltered ranking they are.
func (x *Index) SearchFiltered(ctx context.Context, text string, extra []Term, p Prefer, f Filter, k int) ([]Hit, error) {
	fq, ok, err := x.filterQuery(f)
	if err != nil || !ok {
		return nil, err
	}
	return x.searchPrefer(ctx, text, extra, p, fq, k)
}

// Passing returns which of the passage ids pass f (for candidates found
// elsewhere, such as by meaning).
func (x *Index) Passing(ctx context.Context, ids []string, f Filter) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	fq, ok, err := x.filterQuery(f)
	if err != nil || !ok {
		return out, err
	}
	var q query.Query = query.NewDocIDQuery(ids)
	if fq != nil {
		q = query.NewConjunctionQuery([]query.Query{q, fq})
	}
	req := bleve.NewSearchRequestOptions(q, len(ids), 0, false)
	req.Score = "none"
	res, err := x.b.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("filter passages: %w", err)
	}
	for _, h := range res.Hits {
		out[h.ID] = true
	}
	return out, nil
}
