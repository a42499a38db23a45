package compile

import (
	"bytes"
	"errors"
	"io/fs"
	"regexp"
	"strconv"
	"strings"

	"github.com/quire-app/quire/sidecar/vault"
)

// The log's cap. log.md gains a line per source and would grow for ever;
// Quire moves its oldest entries to archive notes under Log/ only while
// log.md is exactly as Quire last wrote it (quire_hash matches), so no
// word the user typed into it is ever moved or dropped. An archive is
// written (create-only) before log.md is rewritten without its entries: a
// crash in between leaves the entries in both, and the next append finds
// the same archive, byte for byte, and goes on.

// logEntry is the shape of a line Quire writes to the log.
var logEntry = regexp.MustCompile(`^- \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ · .* %%quire:[0-9a-f]+ [a-z-]+%%$`)

// olderPrefix begins log.md's line linking to the newest archive, and
// earlierPrefix an archive's line linking to the archive before it.
const (
	olderPrefix   = "Older entries: "
	earlierPrefix = "Earlier entries: "
)

// cleanLog returns log.md's body when the log is as Quire last wrote it,
// so that it may be archived and sealed: no log yet; a sealed log whose
// hash matches; or a log from before the seal (the mark, or logIntro, and
// no hash) holding nothing but Quire's intro and entry lines. Anything
// else is the user's to keep as it is.
func (c *compiler) cleanLog(old []byte) (string, bool) {
	if old == nil {
		return logIntro, true
	}
	m, body, ok := parsePage(old)
	if ok && m.Hash != "" {
		_, mine := ours(old)
		return body, mine && m.Kind == "log"
	}
	if !ok || m.Quire != Marker || m.Kind != "log" {
		body = string(old)
	}
	// From before the seal: an older version may have written NULs into
	// it (a UTF-16 title), which are mended.
	body = vault.CleanText(body)
	if !strings.HasPrefix(body, logIntro) {
		return "", false
	}
	for _, l := range strings.Split(strings.TrimSuffix(body[len(logIntro):], "\n"), "\n") {
		if l != "" && !logEntry.MatchString(l) {
			return "", false
		}
	}
	return body, true
}

// archiveLog returns the log's body with its oldest half moved to an
// archive note once it holds more than Options.LogEntries entries. The body
// is one Quire wrote: its intro, maybe the link to the previous archive,
// then entries.
func (c *compiler) archiveLog(body string) (string, error) {
	limit := c.opt.LogEntries
	if limit <= 0 {
		limit = DefaultLogEntries
	}
	var older string
	var entries []string
	for _, l := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(l, olderPrefix):
			older = strings.TrimPrefix(l, olderPrefix)
		case logEntry.MatchString(l):
			entries = append(entries, l)
		}
	}
	if len(entries) <= limit {
		return body, nil
	}
	// Always the oldest half of the limit, so that after a crash the same
	// entries make the same archive.
	move, keep := entries[:max(1, limit/2)], entries[max(1, limit/2):]
	first, last := move[0][2:12], move[len(move)-1][2:12]
	span := first
	if last != first {
		span += " to " + last
	}
	var b strings.Builder
	b.WriteString("\n# Quire log, " + span + "\n\nEntries moved out of " + wikilink(c.dir.vaultPath("log.md"), "log.md") + ", oldest first.\n\n")
	if older != "" {
		b.WriteString(earlierPrefix + older + "\n\n")
	}
	b.WriteString(strings.Join(move, "\n") + "\n")
	doc, err := seal(logFront{Quire: Marker, Kind: "log-archive", Format: Format}, b.String())
	if err != nil {
		return "", err
	}
	name := ""
	for i := 1; ; i++ {
		name = logArchives + "/" + span + ".md"
		if i > 1 {
			name = logArchives + "/" + span + " " + strconv.Itoa(i) + ".md"
		}
		err := c.dir.write(name, doc, false)
		if err == nil {
			c.written(c.dir.vaultPath(name), "log", true)
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		// Written by a run that stopped before rewriting log.md: the same
		// entries, the same bytes.
		if have, err := c.dir.read(name); err == nil && bytes.Equal(have, doc) {
			break
		}
	}
	return logIntro + olderPrefix + wikilink(c.dir.vaultPath(name), span) + "\n\n" + strings.Join(keep, "\n") + "\n", nil
}
