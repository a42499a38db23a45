package engine

import (
	"context"
	"path"
	"sort"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/markdown"
	"github.com/quire-app/quire/sidecar/source"
	"github.com/quire-app/quire/sidecar/vault"
)

// TOC is a source's table of contents, generated from what the index
// holds: folder → note → title, tags, headings.
type TOC struct {
	Source   string      `json:"source"`
	Revision string      `json:"revision,omitempty"`
	Folders  []TOCFolder `json:"folders"`
	// Withheld counts the private notes left out (for an MCP client).
	Withheld int `json:"withheld,omitempty"`
}

// TOCFolder is one folder's notes; "" is the source's root.
type TOCFolder struct {
	Folder string    `json:"folder"`
	Notes  []TOCNote `json:"notes"`
}

// TOCNote is one note in a TOC: its path inside the source, its title,
// tags and headings (each with its depth, 1 for the outermost).
type TOCNote struct {
	Path     string       `json:"path"`
	Title    string       `json:"title"`
	Tags     []string     `json:"tags,omitempty"`
	Headings []TOCHeading `json:"headings,omitempty"`
}

// TOCHeading is a heading of a note.
type TOCHeading struct {
	Depth int    `json:"depth"`
	Text  string `json:"text"`
}

// TOC returns the table of contents of the source id as the index holds
// it; mcp leaves private notes out unless mcp.private is include.
func (e *Engine) TOC(ctx context.Context, id string, mcp bool) (TOC, error) {
	cfg := e.Config()
	if !cfg.Sources.Has(id) {
		return TOC{}, errorf(NotFound, "no source %q (config.yaml sources:, or vault)", id)
	}
	out := TOC{Source: id, Folders: []TOCFolder{}}
	if id != source.Vault {
		st, err := e.ix.SourceState(id)
		if err != nil {
			return out, err
		}
		out.Revision = st.Revision
	}
	snap := e.snap.Load()
	entries, err := snap.notes.all()
	if err != nil {
		return out, err
	}
	var keys []string
	for k := range entries {
		if sid, _ := source.Split(k); sid != id {
			continue
		}
		if e.withholds(mcp) && snap.private.Holds(k) {
			out.Withheld++
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	texts, err := e.readNotes(ctx, cfg, id, keys)
	if err != nil {
		return out, err
	}
	params := markdown.Params(cfg.Chunk)
	byFolder := map[string]*TOCFolder{}
	var folders []string
	for _, k := range keys {
		_, rel := source.Split(k)
		n := TOCNote{Path: rel, Title: entries[k].Title}
		if raw, ok := texts[k]; ok {
			if note, err := vault.Parse(rel, raw); err == nil {
				n.Tags = append(append([]string{}, note.Tags...), markdown.Tags(note.Body())...)
				n.Tags = unique(n.Tags)
				for _, h := range markdown.Outline(raw, note.BodyStart, params) {
					if len(h.Path) > 0 {
						n.Headings = append(n.Headings, TOCHeading{Depth: len(h.Path), Text: h.Path[len(h.Path)-1]})
					}
				}
			}
		}
		dir := path.Dir(rel)
		if dir == "." {
			dir = ""
		}
		f := byFolder[dir]
		if f == nil {
			f = &TOCFolder{Folder: dir}
			byFolder[dir] = f
			folders = append(folders, dir)
		}
		f.Notes = append(f.Notes, n)
	}
	sort.Strings(folders)
	for _, d := range folders {
		out.Folders = append(out.Folders, *byFolder[d])
	}
	return out, nil
}

func unique(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, x := range s {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// readNotes reads the notes at keys of source id as the index holds them:
// a git source's blobs in one git process, other notes one by one. A note
// that cannot be read is left out.
func (e *Engine) readNotes(ctx context.Context, cfg config.Config, id string, keys []string) (map[string][]byte, error) {
	out := make(map[string][]byte, len(keys))
	if _, isGit := cfg.Sources.Git[id]; !isGit {
		for _, k := range keys {
			if raw, err := e.readNote(k, cfg.MaxFileBytes); err == nil {
				out[k] = raw
			}
		}
		return out, nil
	}
	repo, err := e.openGit(ctx, cfg, id)
	if err != nil {
		return nil, err
	}
	snap := e.snap.Load()
	blobs := make([]string, len(keys))
	for i, k := range keys {
		en, _ := snap.notes.entry(k)
		blobs[i] = en.Hash
	}
	i := 0
	err = repo.Read(ctx, blobs, cfg.MaxFileBytes, func(_ string, data []byte, rerr error) error {
		if rerr == nil {
			out[keys[i]] = data
		}
		i++
		return nil
	})
	return out, err
}
