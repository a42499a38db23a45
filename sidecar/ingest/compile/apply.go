package compile

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/vault"
)

// apply writes the draft: concept and entity pages, review items, the
// source note (last of the notes, so a crash before it leaves a rerun to
// finish the job), then index.md and log.md. ctx is looked at between
// notes only: a note once begun is finished.
func (c *compiler) apply(ctx context.Context, d draft) error {
	notePath, replace, keep, err := c.sourcePath(d)
	if err != nil {
		return err
	}
	c.res.Note, c.res.Title, c.res.Summarised, c.res.Kept = c.dir.vaultPath(notePath), d.Title, d.Summarised, keep
	var written []string

	// A rebuild of a note the user edited changes no page: they describe
	// the note the user kept.
	pages := c.rebuild == nil || replace
	if !keep && pages {
		for _, it := range d.Concepts {
			if err := ctx.Err(); err != nil {
				return err
			}
			p, err := c.upsertPage(ctx, "concept", it, d.Title)
			if err != nil {
				return err
			}
			if p != "" {
				written = append(written, p)
			}
		}
		for _, it := range d.Entities {
			if err := ctx.Err(); err != nil {
				return err
			}
			p, err := c.upsertPage(ctx, "entity", it, d.Title)
			if err != nil {
				return err
			}
			if p != "" {
				written = append(written, p)
			}
		}
		for _, cf := range d.Conflicts {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := c.conflictReview(cf, d.Title); err != nil {
				return err
			}
		}
		if c.rebuild != nil {
			// The new plan exists and its pages are written: what the
			// old one gave other pages goes.
			if err := c.dropStale(d); err != nil {
				return err
			}
		}
	}
	if !keep {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := c.writeSource(notePath, replace, d); err != nil {
			return err
		}
	}
	if !keep && (c.existing == "" || replace) {
		written = append([]string{c.res.Note}, written...)
	}
	c.res.Written = written
	if err := ctx.Err(); err != nil {
		return err
	}
	if !keep && pages {
		if err := c.consolidate(ctx, written); err != nil {
			return err
		}
	}
	if c.privateSrc {
		// index.md and log.md are not private: a line there would carry
		// the private note's title (its note's name too) out of it.
		return nil
	}
	// A kept summary already has its index line, with its one-liner; so
	// has an edited note whose rebuild went to review.
	if !keep && pages {
		if err := c.updateIndex(notePath, d); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return c.appendLog(notePath, d, keep)
}

// sourcePath picks where the source note goes. A note this source already
// has is reused: replaced when Quire wrote it and nobody edited it (keep
// set instead when it is summarised and this run has no model: a summary
// is never replaced by the bare text), and left alone otherwise — the new
// version then goes to review (replace false, path "" handled by
// writeSource). A new note takes the title's name, or the first free
// "Title 2", "Title 3"….
func (c *compiler) sourcePath(d draft) (name string, replace, keep bool, err error) {
	if c.existing != "" {
		b, err := c.dir.read(c.existing)
		if err != nil {
			return "", false, false, err
		}
		meta, mine := ours(b)
		if (mine || c.rebuild != nil) && meta.Summarised && !d.Summarised {
			return c.existing, false, true, nil
		}
		return c.existing, mine, false, nil
	}
	base := noteName(d.Title)
	for i := 1; ; i++ {
		name = "Sources/" + base + ".md"
		if i > 1 {
			name = "Sources/" + base + " " + strconv.Itoa(i) + ".md"
		}
		b, err := c.dir.read(name)
		if err != nil {
			return "", false, false, err
		}
		if b == nil {
			return name, false, false, nil
		}
	}
}

// writeSource writes the source note at name: created, replaced when it
// is Quire's and unedited, or, when the user edited it, put in review.
func (c *compiler) writeSource(name string, replace bool, d draft) error {
	body, err := renderSource(c, d)
	if err != nil {
		return err
	}
	if c.existing != "" && !replace {
		reason := "The source note was edited since Quire wrote it; this is the new version, for you to merge by hand."
		if c.rebuild != nil {
			reason = "Quire's note layout changed and the source note was rebuilt from its original; you edited the note, so this is the new version, for you to merge by hand."
		}
		return c.review(NewVersionReview(d.Title), reason, c.dir.vaultPath(name), d.Title+" (new version)", string(body))
	}
	if err := c.dir.write(name, body, replace); err != nil {
		return err
	}
	if c.opt.Written != nil {
		c.opt.Written(ingest.Written{Path: c.dir.vaultPath(name), Kind: "source", Created: c.existing == ""})
	}
	return nil
}

// upsertPage creates a concept or entity page, or adds this source's
// section to it. A page that already has the section is left as it is
// (a rerun); a page the user wrote or edited is left untouched and the
// section goes to review. It returns the vault path when it wrote the
// page.
func (c *compiler) upsertPage(ctx context.Context, kind string, it item, title string) (string, error) {
	name := strings.TrimPrefix(it.Path, c.dir.rel+"/")
	sourcePath := c.sourceVaultPath()
	sec := section(sourcePath, title, it)
	old, err := c.dir.read(name)
	if err != nil {
		return "", err
	}
	if old == nil {
		b, err := renderPage(kind, it, c.hash12, sec)
		if err != nil {
			return "", err
		}
		err = c.dir.write(name, b, false)
		if errors.Is(err, fs.ErrExist) {
			return "", nil // written meanwhile by someone else: leave it
		}
		if err != nil {
			return "", err
		}
		c.written(it.Path, kind, true)
		return it.Path, nil
	}
	meta, mine := ours(old)
	if mine && c.rebuild != nil {
		b, err := c.resection(old, sec)
		if b == nil || err != nil {
			return "", err
		}
		if err := c.dir.write(name, b, true); err != nil {
			return "", err
		}
		c.written(it.Path, kind, false)
		return it.Path, nil
	}
	if mine && slices.Contains(meta.Sources, c.hash12) {
		return "", nil
	}
	if !mine {
		reason := "This " + kind + " page was edited since Quire wrote it, so Quire did not change it; here is what the source adds."
		if meta.Quire != Marker {
			reason = "A page not written by Quire has this " + kind + "'s name, so Quire did not change it; here is what the source adds."
		}
		return "", c.review("Review/"+noteName(it.Name)+" — from "+noteName(title)+".md", reason, it.Path, it.Name, sec)
	}
	b, err := extendPage(old, c.hash12, sec)
	if err != nil {
		return "", err
	}
	if err := c.dir.write(name, b, true); err != nil {
		return "", err
	}
	c.written(it.Path, kind, false)
	return it.Path, nil
}

func (c *compiler) written(p, kind string, created bool) {
	if c.opt.Written != nil {
		c.opt.Written(ingest.Written{Path: p, Kind: kind, Created: created})
	}
}

// sourceVaultPath is where the source note is or will be, vault-relative;
// set by apply before any page is written.
func (c *compiler) sourceVaultPath() string { return c.res.Note }

// conflictReview writes a review item for a possible contradiction.
func (c *compiler) conflictReview(cf conflict, title string) error {
	reason := "The source " + title + " may contradict " + cf.Page.Label + "."
	var b strings.Builder
	b.WriteString("## The source says\n\n" + orNone(cf.Claim) + "\n\n")
	b.WriteString("Source: " + wikilink(c.sourceVaultPath(), title) + "\n\n")
	b.WriteString("## The page says\n\n")
	if cf.Snippet != "" {
		for _, l := range strings.Split(strings.TrimSpace(cf.Snippet), "\n") {
			b.WriteString("> " + plain(l) + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("Page: " + wikilink(cf.Page.Path, cf.Page.Label) + "\n\n")
	if cf.Explanation != "" {
		b.WriteString("## Why it may conflict\n\n" + cf.Explanation + "\n")
	}
	name := "Review/Contradiction — " + noteName(title) + " vs " + noteName(cf.Page.Label) + ".md"
	return c.review(name, reason, cf.Page.Path, "Possible contradiction: "+title, b.String())
}

// review writes a review item, once: a rerun finds it there and leaves it.
func (c *compiler) review(name, reason, about, title, body string) error {
	b, err := renderReview(reason, about, c.sourceVaultPath(), title, body, c.privateSrc)
	if err != nil {
		return err
	}
	err = c.dir.write(name, b, false)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	p := c.dir.vaultPath(name)
	c.res.Review = append(c.res.Review, p)
	if c.opt.Reviewed != nil {
		c.opt.Reviewed(ingest.Reviewed{Path: p, Reason: reason, About: about})
	}
	return nil
}

// indexFront is index.md's frontmatter.
type indexFront struct {
	Quire  string `yaml:"quire"`
	Kind   string `yaml:"quire_kind"`
	Format int    `yaml:"quire_format"`
	Hash   string `yaml:"quire_hash"`
}

const indexIntro = "\n# Sources\n\nEvery source Quire has read, newest first.\n\n"

// updateIndex puts the source's line in index.md, replacing the line an
// earlier run wrote for it. An index.md the user edited is left alone.
func (c *compiler) updateIndex(notePath string, d draft) error {
	old, err := c.dir.read("index.md")
	if err != nil {
		return err
	}
	var lines []string
	if old != nil {
		if _, mine := ours(old); !mine {
			return c.review("Review/index.md edited — "+noteName(d.Title)+".md",
				"index.md was edited since Quire wrote it, so Quire did not add this source to it.",
				c.dir.vaultPath("index.md"), "Index entry for "+d.Title, c.indexLine(notePath, d)+"\n")
		}
		_, body, _ := parsePage(old)
		for _, l := range strings.Split(body, "\n") {
			if strings.HasPrefix(l, "- ") && strings.Contains(l, "%%quire:") && !strings.Contains(l, "%%quire:"+c.hash12+"%%") &&
				(c.rebuild == nil || !strings.Contains(l, "%%quire:"+c.rebuild.old+"%%")) {
				lines = append(lines, vault.CleanText(l))
			}
		}
	}
	lines = append(lines, c.indexLine(notePath, d))
	// Newest first; the line starts with the date, and ties keep order.
	slices.SortStableFunc(lines, func(a, b string) int { return strings.Compare(b[:min(len(b), 12)], a[:min(len(a), 12)]) })
	b, err := seal(indexFront{Quire: Marker, Kind: "index", Format: Format}, indexIntro+strings.Join(lines, "\n")+"\n")
	if err != nil {
		return err
	}
	if old != nil && string(old) == string(b) {
		return nil
	}
	if err := c.dir.write("index.md", b, true); err != nil {
		return err
	}
	c.written(c.dir.vaultPath("index.md"), "index", old == nil)
	return nil
}

func (c *compiler) indexLine(notePath string, d draft) string {
	l := "- " + c.captured.UTC().Format("2006-01-02") + " · " + wikilink(c.dir.vaultPath(notePath), d.Title)
	if d.OneLiner != "" {
		l += " — " + d.OneLiner
	} else if !d.Summarised {
		l += " — not summarised"
	}
	return l + " %%quire:" + c.hash12 + "%%"
}

// logFront is log.md's frontmatter: the ownership mark logOurs checks and,
// since logs are archived, quire_hash (an older log.md began with logIntro
// and had no frontmatter).
type logFront struct {
	Quire  string `yaml:"quire"`
	Kind   string `yaml:"quire_kind"`
	Format int    `yaml:"quire_format"`
	Hash   string `yaml:"quire_hash"`
}

// logIntro is how log.md's body begins.
const logIntro = "# Quire log\n\nWhat Quire wrote into this folder, oldest first.\n\n"

// DefaultLogEntries is how many entries log.md holds before the oldest
// half is moved to an archive note (Options.LogEntries).
const DefaultLogEntries = 500

// logArchives is the folder (in the generated folder) of the archive notes
// older log entries are moved to.
const logArchives = "Log"

// logOurs reports whether log.md was started by Quire: it carries the
// mark, or begins the way Quire began it before the mark existed. The
// user's own lines below stay, since an edited log is only appended to.
func logOurs(b []byte) bool {
	if strings.HasPrefix(string(b), logIntro) {
		return true
	}
	m, _, ok := parsePage(b)
	return ok && m.Quire == Marker && m.Kind == "log"
}

// appendLog adds a line to log.md saying what this run did; a rerun that
// did the same adds none. A log the user edited is only ever appended to,
// so their edits stay; one as Quire last wrote it keeps at most
// Options.LogEntries entries, the oldest moving to archive notes.
func (c *compiler) appendLog(notePath string, d draft, keep bool) error {
	old, err := c.dir.read("log.md")
	if err != nil {
		return err
	}
	what := "saved unsummarised"
	switch {
	case keep && c.rebuild != nil:
		what = "could not rebuild"
	case keep:
		what = "kept the summary of"
	case d.Summarised && d.Unread > 0:
		what = "summarised part of"
	case d.Summarised:
		what = "summarised"
	}
	if c.rebuild != nil && !keep {
		what = "rebuilt"
	}
	marker := "%%quire:" + c.hash12 + " " + strings.ReplaceAll(what, " ", "-") + "%%"
	if strings.Contains(string(old), marker) {
		return nil
	}
	if old != nil && !logOurs(old) {
		line := "- " + time.Now().UTC().Format(time.RFC3339) + " · " + what + " " + wikilink(c.dir.vaultPath(notePath), d.Title) + "\n"
		return c.review("Review/log.md not Quire's — "+noteName(d.Title)+".md",
			"log.md in this folder was not written by Quire, so Quire did not add to it; here is the line it would have added.",
			c.dir.vaultPath("log.md"), "Log entry for "+d.Title, line)
	}
	line := "- " + time.Now().UTC().Format(time.RFC3339) + " · " + what + " " + wikilink(c.dir.vaultPath(notePath), d.Title)
	if d.Checks != "" {
		line += " · " + d.Checks
	}
	if len(c.res.Review) > 0 {
		line += " · " + strconv.Itoa(len(c.res.Review)) + " review item(s)"
	}
	line += " " + marker + "\n"
	var b []byte
	if body, clean := c.cleanLog(old); clean {
		// As Quire last wrote it: the oldest entries may move to an
		// archive, and the log is sealed again.
		body, err = c.archiveLog(body + line)
		if err != nil {
			return err
		}
		if b, err = seal(logFront{Quire: Marker, Kind: "log", Format: Format}, body); err != nil {
			return err
		}
	} else {
		// Edited by the user: only appended to, so every word of theirs
		// stays where they put it; it is never archived or sealed again.
		// Cleaned: a log an older version wrote NULs into (a UTF-16 title)
		// is mended rather than left unindexable for good.
		text := vault.CleanText(string(old))
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		b = []byte(text + line)
	}
	if err := c.dir.write("log.md", b, true); err != nil {
		return err
	}
	c.written(c.dir.vaultPath("log.md"), "log", old == nil)
	return nil
}
