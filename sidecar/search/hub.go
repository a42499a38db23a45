package search

import (
	"cmp"
	"context"
	"path"
	"slices"
	"strings"
)

// overviewWords are the words and phrases that ask for a map of the notes
// (what a hub answers) rather than for one fact, in the five languages
// Quire translates. One ambiguous word alone ("list", "elenco") is not
// one: it names a thing as often as it asks for an overview.
var overviewWords = phrases(
	// English
	"overview", "summary of my", "map of", "index of", "all my", "everything about", "everything on", "everything i know",
	"what do i know about", "what have i written", "which notes", "what notes", "working on", "table of contents",
	// Czech
	"přehled", "všechny moje", "všechno o", "na čem pracuji", "na čem pracuju", "obsah poznámek",
	// Italian
	"panoramica", "quadro generale", "riepilogo", "tutti i miei", "tutte le mie", "tutto su", "sto lavorando",
	// Spanish
	"visión general", "vista general", "todos mis", "todas mis", "todo sobre", "estoy trabajando",
	// German
	"überblick", "übersicht", "alle meine", "alles über", "arbeite ich", "inhaltsverzeichnis",
)

// MaxQuestionWords is the most words a query may have to be read as a
// question about time or an overview: a note's text searched for related
// pages says "now" or "overview" without asking anything.
const MaxQuestionWords = 40

// ReadOverview reports whether query asks for an overview. A text longer
// than a question (a note's, for related pages) asks nothing.
func ReadOverview(query string) bool {
	ws := queryWords(query)
	if len(ws) > MaxQuestionWords {
		return false
	}
	for i := range ws {
		for _, p := range overviewWords {
			if at(ws, i, p) {
				return true
			}
		}
	}
	return false
}

// hubNames are the names Obsidian users give the notes that map their
// vault or a part of it.
var hubNames = map[string]bool{"home": true, "index": true, "readme": true, "dashboard": true, "start here": true, "start": true,
	"map of content": true, "map of contents": true, "contents": true, "moc": true, "overview": true}

// IsHubName reports whether a note's path names a hub: home, index,
// README, a dashboard, a map of content ("Projects MOC").
func IsHubName(p string) bool {
	name := strings.ToLower(strings.TrimSuffix(path.Base(p), ".md"))
	name = strings.Trim(name, "_-0123456789 ")
	if hubNames[name] {
		return true
	}
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '-' || r == '_' || r == '(' || r == ')' }) {
		if w == "moc" {
			return true
		}
	}
	return false
}

// The shape of a hub: at least HubMinLinkLines of its lines lead with a
// link, and they are at least half its lines of content (a map of
// content is a list of links; a leaf links inside its prose). On the
// bench corpora this finds the help docs' home pages in five languages
// and appunti's ★ course maps, and none of 79 Wikipedia articles or
// 1,871 TIL notes.
const HubMinLinkLines = 5

// IsHub reports whether a note is a hub, by its name or its shape.
func IsHub(p string, linkLines, lines int) bool {
	return IsHubName(p) || linkLines >= HubMinLinkLines && 2*linkLines >= lines
}

// hubPlace is where an overview question puts the vault's main hub when
// no hub of the pool holds its words: among the first three, so that a
// question about one subject loses at most its fifth passage to it.
const hubPlace = 2

// hubOrder answers an overview question with the hubs: the first passage
// of each hub note of the pool that holds some of the query's words moves
// before every other note (their order kept), the leaves they map
// following as they ranked. With none, the vault's main hub (Hubs[0]) is
// placed among the first three. Fact questions keep the pool's order:
// there the leaf that holds the fact comes first.
func (s *Searcher) hubOrder(ctx context.Context, t Terms, cs []Candidate, f Filter) ([]Candidate, error) {
	if !t.Overview || s.Hub == nil || len(cs) == 0 {
		return cs, nil
	}
	q := s.concepts(ctx, t)
	held := map[string]uint64{}
	for _, c := range cs {
		held[c.Path] |= q.match(c.Text).held | q.match(c.Title+"\n"+c.Breadcrumb()).held
	}
	var hubs, rest []Candidate
	lead := map[string]bool{}
	for _, c := range cs {
		if !lead[c.Path] && s.Hub(c.Path) && q.share(held[c.Path]) > 0 {
			lead[c.Path] = true
			hubs = append(hubs, c)
			continue
		}
		rest = append(rest, c)
	}
	if len(hubs) > 0 {
		return append(hubs, rest...), nil
	}
	if s.Hubs == nil || !f.IsZero() {
		return cs, nil // the main hub may be outside what the filter lets through
	}
	ranked := s.Hubs()
	if len(ranked) == 0 {
		return cs, nil
	}
	main := ranked[0]
	at := -1
	for i, c := range cs {
		if c.Path == main {
			at = i
			break
		}
	}
	var p Candidate
	switch {
	case at >= 0 && at <= hubPlace:
		return cs, nil
	case at > hubPlace:
		p = cs[at]
		cs = append(cs[:at:at], cs[at+1:]...)
	default:
		best, ok, err := s.bestOf(ctx, &q, main)
		if err != nil || !ok {
			return cs, err
		}
		p = Candidate{Passage: best}
	}
	i := min(hubPlace, len(cs))
	out := make([]Candidate, 0, len(cs)+1)
	out = append(out, cs[:i]...)
	out = append(out, p)
	return append(out, cs[i:]...), nil
}

// HubNote is what RankHubs reads of a note.
type HubNote struct {
	Path             string
	LinkLines, Lines int
}

// RankHubs returns the hubs among notes, the vault's main one first: a
// hub named as one at the vault's top (Home, index, README) before one
// named so in a folder, before one known by its shape alone; more lines
// of links first within each.
func RankHubs(notes []HubNote) []string {
	type hub struct {
		path         string
		class, links int
	}
	var hs []hub
	for _, n := range notes {
		if !IsHub(n.Path, n.LinkLines, n.Lines) {
			continue
		}
		class := 2
		if IsHubName(n.Path) {
			class = 1
			if !strings.Contains(n.Path, "/") {
				class = 0
			}
		}
		hs = append(hs, hub{n.Path, class, n.LinkLines})
	}
	slices.SortFunc(hs, func(a, b hub) int {
		return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(b.links, a.links), cmp.Compare(a.path, b.path))
	})
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.path
	}
	return out
}
