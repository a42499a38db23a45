package index

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/quire-app/quire/sidecar/vault"
)

// Succession is what the vault's notes say about replacing each other.
type Succession struct {
	// Next maps a superseded note to the note that now stands for it:
	// its successor, followed along the chain to the first note not
	// superseded (or to the last one the chain reaches).
	Next map[string]string
	// Broken lists superseded notes whose chain cannot be followed: a
	// successor that is no note of the vault, or a cycle.
	Broken []vault.Skip
}

// maxChain bounds a chain of successors that is followed.
const maxChain = 32

// Successions resolves every superseded note's successor as Obsidian
// resolves a wikilink: by file name without .md, case folded (a link with
// a folder matches the end of the path), the shortest path first; by title
// when no file name matches.
func Successions(entries map[string]Entry) Succession {
	s := Succession{Next: map[string]string{}}
	byName := map[string][]string{}
	byTitle := map[string][]string{}
	for p, e := range entries {
		name := strings.ToLower(strings.TrimSuffix(path.Base(p), path.Ext(p)))
		byName[name] = append(byName[name], p)
		if e.Title != "" {
			t := strings.ToLower(e.Title)
			byTitle[t] = append(byTitle[t], p)
		}
	}
	shortest := func(ps []string) string {
		sort.Slice(ps, func(i, j int) bool {
			if len(ps[i]) != len(ps[j]) {
				return len(ps[i]) < len(ps[j])
			}
			return ps[i] < ps[j]
		})
		return ps[0]
	}
	resolve := func(link string) string {
		l := strings.ToLower(strings.Trim(link, "/"))
		if l == "" {
			return ""
		}
		if strings.Contains(l, "/") {
			if _, ok := entries[link+".md"]; ok {
				return link + ".md"
			}
			var ps []string
			for _, cand := range byName[path.Base(l)] {
				if strings.HasSuffix(strings.ToLower(strings.TrimSuffix(cand, ".md")), l) {
					ps = append(ps, cand)
				}
			}
			if len(ps) > 0 {
				return shortest(ps)
			}
			return ""
		}
		if ps := byName[l]; len(ps) > 0 {
			return shortest(append([]string(nil), ps...))
		}
		if ps := byTitle[l]; len(ps) > 0 {
			return shortest(append([]string(nil), ps...))
		}
		return ""
	}
	for p, e := range entries {
		if !e.Superseded || e.SupersededBy == "" {
			continue
		}
		seen := map[string]bool{p: true}
		cur, last := p, ""
		for i := 0; i < maxChain; i++ {
			ce := entries[cur]
			if !ce.Superseded || ce.SupersededBy == "" {
				break
			}
			next := resolve(ce.SupersededBy)
			if next == "" {
				s.Broken = append(s.Broken, vault.Skip{Path: cur, Reason: fmt.Sprintf("superseded by [[%s]], which is no note of the vault", ce.SupersededBy)})
				break
			}
			if seen[next] {
				s.Broken = append(s.Broken, vault.Skip{Path: cur, Reason: fmt.Sprintf("superseded by [[%s]], which leads back to it (a cycle)", ce.SupersededBy)})
				last = ""
				break
			}
			seen[next] = true
			cur, last = next, next
		}
		if last != "" {
			s.Next[p] = last
		}
	}
	// One warning per broken note, whichever chain reached it.
	sort.Slice(s.Broken, func(i, j int) bool { return s.Broken[i].Path < s.Broken[j].Path })
	out := s.Broken[:0]
	for i, b := range s.Broken {
		if i == 0 || b.Path != s.Broken[i-1].Path {
			out = append(out, b)
		}
	}
	s.Broken = out
	return s
}
