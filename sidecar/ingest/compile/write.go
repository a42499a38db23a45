package compile

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/quire-app/quire/sidecar/ingest/raw"
	"github.com/quire-app/quire/sidecar/vault"
)

// Writing. Every file goes through an os.Root opened on the generated
// folder, so neither a hostile name nor a symbolic link leads outside it.
// A file is written aside under a hidden name, synced, then renamed (or,
// when it must not replace anything, hard-linked) into place and the
// folder synced: a note is whole or absent, never half written.
//
// Quire's own pages carry "quire: generated" and quire_hash, the hash of
// the file as Quire last wrote it (with the hash's own value left empty).
// A page whose bytes no longer match was edited by the user and is never
// written again.

// Marker is the frontmatter value that says Quire generated a page.
const Marker = "generated"

// Format is the layout version of the notes Quire writes, frontmatter
// quire_format in every one of them. Raise it when the layout of a
// source note changes: `quire reingest` rebuilds every source note of
// an older layout from its original (Rebuild), and a note's own
// quire_format is the mark of a rebuild finished, so a run stopped
// anywhere resumes where it was.
const Format = 1

// tempPrefix marks files being written; the dot hides them from Obsidian
// and from the vault walker, so a crash leaves nothing the user sees.
const tempPrefix = ".quire-tmp-"

// writing is held, shared, by every write from its temporary file to its
// rename, and alone by sweep: a sweep never takes the temporary file of a
// write under way in this process (lint writes while the worker runs).
var writing sync.RWMutex

// folder is the generated folder, open.
type folder struct {
	root *os.Root
	rel  string // vault-relative, slash-separated, e.g. "Quire"
	// writeHook runs between the temporary file and the rename; tests use
	// it to interrupt a write.
	writeHook func(name string)
}

func openFolder(vaultDir, rel string) (*folder, error) {
	rel = filepath.ToSlash(rel)
	if strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) {
		return nil, fmt.Errorf("folder %q is not a folder inside the vault", rel)
	}
	rel = path.Clean(strings.TrimRight(rel, "/"))
	if rel == "." || rel == "" || !filepath.IsLocal(filepath.FromSlash(rel)) || strings.HasPrefix(rel, ".") {
		return nil, fmt.Errorf("folder %q is not a folder inside the vault", rel)
	}
	vault, err := os.OpenRoot(vaultDir)
	if err != nil {
		return nil, err
	}
	defer vault.Close()
	if err := vault.MkdirAll(filepath.FromSlash(rel), 0o755); err != nil {
		return nil, err
	}
	root, err := vault.OpenRoot(filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	return &folder{root: root, rel: rel}, nil
}

func (f *folder) close() { f.root.Close() }

// vaultPath is the vault-relative path of name (relative to the folder).
func (f *folder) vaultPath(name string) string { return path.Join(f.rel, name) }

// read returns the file's bytes, or nil and no error when it does not
// exist.
func (f *folder) read(name string) ([]byte, error) {
	b, err := f.root.ReadFile(filepath.FromSlash(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// write puts data at name atomically. With replace false an existing
// file is left alone and fs.ErrExist returned.
func (f *folder) write(name string, data []byte, replace bool) error {
	// Every note Quire writes must be one the indexer reads: a NUL or a
	// bad byte that got this far is a bug to report, not a note to hide.
	if err := vault.CheckText(data); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	name = filepath.FromSlash(name)
	dir := filepath.Dir(name)
	if err := f.root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	writing.RLock()
	defer writing.RUnlock()
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(dir, tempPrefix+hex.EncodeToString(rnd[:]))
	t, err := f.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = t.Write(data)
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	defer f.root.Remove(tmp)
	if err != nil {
		return err
	}
	if f.writeHook != nil {
		f.writeHook(name)
	}
	if replace {
		err = f.root.Rename(tmp, name)
	} else if err = f.root.Link(tmp, name); err != nil && !errors.Is(err, fs.ErrExist) {
		// No hard links on this file system: check, then rename.
		if _, serr := f.root.Lstat(name); serr == nil {
			err = fs.ErrExist
		} else {
			err = f.root.Rename(tmp, name)
		}
	}
	if err != nil {
		return err
	}
	if d, err := f.root.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// list returns the .md names in dir (relative to the folder), or none
// when it does not exist.
func (f *folder) list(dir string) ([]string, error) {
	d, err := f.root.Open(filepath.FromSlash(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md") && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out, nil
}

var hashLine = regexp.MustCompile(`(?m)^quire_hash: ?"?([0-9a-f]*)"?$`)

// seal renders frontmatter meta (whose quire_hash is empty) and body into
// a file, and fills in quire_hash.
func seal(meta any, body string) ([]byte, error) {
	front, err := yaml.Marshal(meta)
	if err != nil {
		return nil, err
	}
	doc := []byte("---\n" + string(front) + "---\n" + body)
	sum := sha256.Sum256(unsealed(doc))
	loc := hashLine.FindSubmatchIndex(doc)
	if loc == nil {
		return nil, errors.New("seal: no quire_hash in frontmatter")
	}
	var out bytes.Buffer
	out.Write(doc[:loc[0]])
	out.WriteString("quire_hash: " + hex.EncodeToString(sum[:]))
	out.Write(doc[loc[1]:])
	return out.Bytes(), nil
}

// unsealed is doc with the quire_hash value emptied, as it was hashed.
func unsealed(doc []byte) []byte {
	return hashLine.ReplaceAll(doc, []byte(`quire_hash: ""`))
}

// pageMeta is the part of a page's frontmatter the writer reads back.
type pageMeta struct {
	Quire       string   `yaml:"quire"`
	Kind        string   `yaml:"quire_kind"`
	Format      int      `yaml:"quire_format"`
	Title       string   `yaml:"title"`
	Source      string   `yaml:"source"`
	URL         string   `yaml:"url"`
	Captured    string   `yaml:"captured"`
	Sources     []string `yaml:"quire_sources"`
	ContentHash string   `yaml:"content_hash"`
	Raw         string   `yaml:"raw"`
	Summarised  bool     `yaml:"summarised"`
	Private     bool     `yaml:"private"`
	Hash        string   `yaml:"quire_hash"`
}

// parsePage splits a page into its frontmatter and body.
func parsePage(doc []byte) (pageMeta, string, bool) {
	var m pageMeta
	body, err := vault.DecodeFrontmatter(doc, &m)
	if err != nil {
		return pageMeta{}, string(doc), false
	}
	return m, string(body), true
}

// ours reports whether doc is a page Quire generated and nobody edited
// since: the marker is there and the hash matches the bytes.
func ours(doc []byte) (pageMeta, bool) {
	m, _, ok := parsePage(doc)
	if !ok || m.Quire != Marker || len(m.Hash) != 64 {
		return m, false
	}
	sum := sha256.Sum256(unsealed(doc))
	return m, hex.EncodeToString(sum[:]) == m.Hash
}

// noteName turns a title into a note file name (no extension): safe on
// every file system (raw.SafeName) and in a wikilink (no [ ] # ^ |).
func noteName(title string) string {
	s := strings.Map(func(r rune) rune {
		if strings.ContainsRune("[]#^|", r) {
			return -1
		}
		return r
	}, oneLine(title))
	if s == "" {
		s = "Untitled"
	}
	// SafeName keeps a short alphanumeric "extension"; a title such as
	// "Go 1.22" must keep it as part of the name.
	s = raw.SafeName(s + ".md")
	return strings.TrimSuffix(s, ".md")
}
