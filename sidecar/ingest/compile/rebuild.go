package compile

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/vault"
)

// Rebuilding a source note in the current layout (Format), for `quire
// reingest`. A rebuild is a compile of the note's original (Source.Rebuild
// names the note) with four differences:
//
//   - the note keeps its path and its title, so every [[link]] to it
//     still resolves;
//   - the sections it gave concept and entity pages are replaced by the
//     new plan's, and those the new plan no longer names are removed, only
//     once the new plan exists (after the model's reading, in apply);
//   - a note the user edited is never overwritten: its new version goes
//     to review (NewVersionReview), and the pages it gave sections to are
//     left as the note the user kept describes them;
//   - a model that fails keeps the note as it is (Result.Kept).
//
// Pages are written before the source note, and the source note's own
// quire_format is the mark of a rebuild done: a run killed anywhere leaves
// the note in its old layout, and the next run redoes it, replacing (not
// adding) what the killed run already wrote.

// rebuilding is the state of a compile that rebuilds a note.
type rebuilding struct {
	title string // the note's title, kept
	old   string // the first 12 characters of its old content hash
}

// Outdated is a source note Quire wrote in an older layout than Format.
type Outdated struct {
	Note     string    `json:"note"`   // vault-relative
	Title    string    `json:"title"`  // kept by the rebuild
	Format   int       `json:"format"` // its layout version (0: before quire_format)
	Origin   string    `json:"source"` // the URL or file it was read from
	URL      string    `json:"url,omitempty"`
	Raw      string    `json:"raw,omitempty"` // its saved original, vault-relative; "" when none
	Captured time.Time `json:"captured"`
	// Edited says the user changed the note since Quire wrote it: its
	// rebuild goes to the review item Review.
	Edited bool   `json:"edited"`
	Review string `json:"review,omitempty"`
}

// ListOutdated lists the source notes of the generated folder written in
// an older layout than Format, by path. A note whose frontmatter cannot be
// read is not listed (Lint reports it).
func ListOutdated(vaultDir, rel string) ([]Outdated, error) {
	if err := CheckOwned(vaultDir, rel); err != nil {
		return nil, err
	}
	dir, err := openFolder(vaultDir, rel)
	if err != nil {
		return nil, err
	}
	defer dir.close()
	names, err := dir.list("Sources")
	if err != nil {
		return nil, err
	}
	var out []Outdated
	for _, n := range names {
		b, err := dir.read(n)
		if err != nil {
			return nil, err
		}
		m, mine := ours(b)
		if m.Quire != Marker || m.Kind != "source" || m.Format >= Format {
			continue
		}
		o := Outdated{Note: dir.vaultPath(n), Title: m.Title, Format: m.Format, Origin: m.Source, URL: m.URL, Raw: m.Raw, Edited: !mine}
		if o.Title == "" {
			o.Title = strings.TrimSuffix(strings.TrimPrefix(n, "Sources/"), ".md")
		}
		o.Captured, _ = time.Parse(time.RFC3339, m.Captured)
		if o.Edited {
			o.Review = dir.vaultPath(NewVersionReview(o.Title))
		}
		out = append(out, o)
	}
	return out, nil
}

// NewVersionReview is the review item, folder-relative, that holds the new
// version of the source note titled title when the user edited the note.
func NewVersionReview(title string) string {
	return "Review/" + noteName(title) + " (new version).md"
}

// startRebuild reads the note src.Rebuild names: a source note of the
// generated folder that Quire wrote.
func (c *compiler) startRebuild() error {
	rel, ok := strings.CutPrefix(c.src.Rebuild, c.dir.rel+"/")
	if !ok || !strings.HasPrefix(rel, "Sources/") || !strings.HasSuffix(rel, ".md") {
		return fmt.Errorf("rebuild %s: not a source note of %s", c.src.Rebuild, c.dir.rel)
	}
	b, err := c.dir.read(rel)
	if err != nil {
		return err
	}
	if b == nil {
		return fmt.Errorf("rebuild %s: no such note", c.src.Rebuild)
	}
	m, _, ok := parsePage(b)
	if !ok || m.Quire != Marker || m.Kind != "source" {
		return fmt.Errorf("rebuild %s: not a source note Quire wrote", c.src.Rebuild)
	}
	c.existing = rel
	c.rebuild = &rebuilding{title: oneLine(m.Title), old: m.ContentHash[:min(12, len(m.ContentHash))]}
	return nil
}

// cites reports whether a page's sources include this source, by its old
// or its new hash.
func (c *compiler) cites(sources []string) bool {
	return slices.Contains(sources, c.hash12) || c.rebuild != nil && c.rebuild.old != "" && slices.Contains(sources, c.rebuild.old)
}

// resection replaces, in a page Quire wrote and nobody edited, the
// sections this source gave it by sec (none when sec is ""), and its
// hash in quire_sources by the new one (or none). It returns nil when
// nothing changes.
func (c *compiler) resection(doc []byte, sec string) ([]byte, error) {
	var meta pageFront
	if _, err := vault.DecodeFrontmatter(doc, &meta); err != nil {
		return nil, err
	}
	_, body, _ := parsePage(doc)
	body = stripSections(body, c.sourceVaultPath())
	meta.Sources = slices.DeleteFunc(meta.Sources, func(h string) bool { return c.cites([]string{h}) })
	body = strings.TrimRight(body, "\n") + "\n"
	if sec != "" {
		body += "\n" + sec
		meta.Sources = append(meta.Sources, c.hash12)
	}
	if meta.Sources == nil {
		meta.Sources = []string{}
	}
	meta.Format, meta.Hash = Format, ""
	b, err := seal(meta, body)
	if err != nil || string(b) == string(doc) {
		return nil, err
	}
	return b, nil
}

// stripSections removes from a page's body the sections headed "## From
// [[<sourcePath>…]]": what that source added.
func stripSections(body, sourcePath string) string {
	head := "## From [[" + linkUnsafe.Replace(strings.TrimSuffix(sourcePath, ".md"))
	var b strings.Builder
	skipping := false
	for _, line := range strings.SplitAfter(body, "\n") {
		if strings.HasPrefix(line, "## ") {
			rest, ok := strings.CutPrefix(line, head)
			skipping = ok && (strings.HasPrefix(rest, "|") || strings.HasPrefix(rest, "]]"))
		}
		if !skipping {
			b.WriteString(line)
		}
	}
	return b.String()
}

// dropStale removes this source's old sections from the concept and entity
// pages the new plan no longer names. A page the user edited keeps them;
// a review item says what the rebuilt source no longer supports.
func (c *compiler) dropStale(d draft) error {
	named := map[string]bool{}
	for _, it := range append(slices.Clone(d.Concepts), d.Entities...) {
		named[strings.TrimPrefix(it.Path, c.dir.rel+"/")] = true
	}
	for _, dir := range []string{"Concepts", "Entities"} {
		names, err := c.dir.list(dir)
		if err != nil {
			return err
		}
		for _, n := range names {
			if named[n] {
				continue
			}
			b, err := c.dir.read(n)
			if err != nil {
				return err
			}
			meta, mine := ours(b)
			if meta.Quire != Marker || !c.cites(meta.Sources) {
				continue
			}
			if !mine {
				title := strings.TrimSuffix(strings.TrimPrefix(n, dir+"/"), ".md")
				reason := "The rebuilt source " + c.rebuild.title + " no longer names " + title + "; you edited the page, so its section from that source is still there."
				if err := c.review("Review/"+noteName(title)+" — no longer from "+noteName(c.rebuild.title)+".md", reason, c.dir.vaultPath(n), title, ""); err != nil {
					return err
				}
				continue
			}
			nb, err := c.resection(b, "")
			if err != nil {
				return err
			}
			if nb == nil {
				continue
			}
			if err := c.dir.write(n, nb, true); err != nil {
				return err
			}
			c.written(c.dir.vaultPath(n), meta.Kind, false)
		}
	}
	return nil
}
