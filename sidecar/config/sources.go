package config

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/source"
)

// Sources are the notes Quire reads besides the vault (sources:), each
// under a stable id: the catalog and vectors hang on the id, so a path or
// URL may change under it, while a renamed id is a new source indexed
// anew. Quire never writes into a source.
type Sources struct {
	Git     map[string]GitSource    `yaml:"git"`
	Folders map[string]FolderSource `yaml:"folders"`
}

// GitSource is a git repository (sources.git.<id>): an existing clone read
// in place (path), or a remote cloned as a mirror into the state folder
// (url). Its notes are those of one branch's last commit.
type GitSource struct {
	// Path is an existing clone on this machine. Quire reads its branch
	// and never writes into it: no fetch either, which would write refs
	// and objects there; a pull the user makes is seen at the next sync.
	Path string `yaml:"path"`
	// URL is a remote Quire clones as a mirror into the state folder and
	// fetches into that mirror.
	URL string `yaml:"url"`
	// Branch is the branch read; empty means the clone's current branch
	// (path) or the remote's default branch (url).
	Branch string `yaml:"branch"`
	// Fetch says when a url source is fetched: "manual" (the default:
	// quire index and quire sources --fetch), "on-query" or "every 15m".
	Fetch   string   `yaml:"fetch"`
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
}

// FolderSource is a folder of notes outside the vault
// (sources.folders.<id>).
type FolderSource struct {
	// Paths are absolute globs of the folders read, e.g.
	// "/home/me/work/**"; a source's paths are kept relative to their
	// common parent.
	Paths   []string `yaml:"paths"`
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
}

// The fetch policies of GitSource.Fetch, besides "every <duration>".
const (
	FetchManual  = "manual"
	FetchOnQuery = "on-query"
)

// Has reports whether id is a configured source's (the vault's too).
func (s Sources) Has(id string) bool {
	_, git := s.Git[id]
	_, folder := s.Folders[id]
	return id == source.Vault || git || folder
}

// FetchEvery reads "every 15m" as its period; ok is false for any other
// policy.
func FetchEvery(policy string) (time.Duration, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(policy), "every ")
	if !ok {
		return 0, false
	}
	d, err := time.ParseDuration(strings.TrimSpace(rest))
	return d, err == nil
}

// Validate reports the first bad source, naming its key under sources.
func (s Sources) Validate() error {
	for _, id := range sortedKeys(s.Git) {
		if err := s.Git[id].validate(id); err != nil {
			return fmt.Errorf("git.%s.%w", id, err)
		}
	}
	for _, id := range sortedKeys(s.Folders) {
		if _, dup := s.Git[id]; dup {
			return fmt.Errorf("folders.%s: the id %q is taken by git.%s; ids are unique across kinds", id, id, id)
		}
		if err := s.Folders[id].validate(id); err != nil {
			return fmt.Errorf("folders.%s.%w", id, err)
		}
	}
	return nil
}

func (g GitSource) validate(id string) error {
	if err := source.CheckID(id); err != nil {
		return fmt.Errorf("id: %w", err)
	}
	switch {
	case g.Path == "" && g.URL == "":
		return errors.New("path: set path (an existing clone) or url (a remote to mirror)")
	case g.Path != "" && g.URL != "":
		return errors.New("url: set path or url, not both")
	case g.Path != "" && !filepath.IsAbs(g.Path):
		return fmt.Errorf("path: %q is not an absolute path", g.Path)
	case strings.HasPrefix(g.Branch, "-") || strings.ContainsAny(g.Branch, " ~^:?*[\\") || strings.Contains(g.Branch, ".."):
		return fmt.Errorf("branch: %q is not a branch name", g.Branch)
	}
	if g.URL != "" {
		if err := checkRemote(g.URL); err != nil {
			return fmt.Errorf("url: %w", err)
		}
	}
	switch p := g.Fetch; {
	case p == "" || p == FetchManual || p == FetchOnQuery:
	default:
		d, ok := FetchEvery(p)
		if !ok {
			return fmt.Errorf("fetch: %q is not manual, on-query or every <duration> (e.g. every 15m)", p)
		}
		if d < time.Minute {
			return fmt.Errorf("fetch: %q is more often than every 1m", p)
		}
	}
	return checkGlobs(g.Include, g.Exclude)
}

// checkRemote accepts what git clones from without a shell or a helper
// Quire did not choose: https, http, ssh, git and file URLs, and scp-like
// user@host:path. Credentials in the URL would be copied into the state
// folder's mirror config, so they are refused.
func checkRemote(raw string) error {
	if strings.HasPrefix(raw, "-") {
		return fmt.Errorf("%q starts with -", raw)
	}
	if u, err := url.Parse(raw); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		switch u.Scheme {
		case "https", "http", "ssh", "git", "file":
		default:
			return fmt.Errorf("%q: scheme %s is not https, http, ssh, git or file", raw, u.Scheme)
		}
		if _, hasPass := u.User.Password(); hasPass {
			return fmt.Errorf("%q holds a password; use a credential helper or an ssh key", raw)
		}
		return nil
	}
	if host, _, ok := strings.Cut(raw, ":"); ok && host != "" && !strings.Contains(host, "/") {
		return nil // scp-like: git@host:team/notes.git
	}
	return fmt.Errorf("%q is not a git URL", raw)
}

func (f FolderSource) validate(id string) error {
	if err := source.CheckID(id); err != nil {
		return fmt.Errorf("id: %w", err)
	}
	if len(f.Paths) == 0 {
		return errors.New("paths: at least one folder, e.g. [\"/home/me/work/**\"]")
	}
	for _, p := range f.Paths {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("paths: %q is not an absolute path", p)
		}
		if _, err := path.Match(filepath.ToSlash(p), ""); err != nil {
			return fmt.Errorf("paths: %q: %w", p, err)
		}
	}
	return checkGlobs(f.Include, f.Exclude)
}

func checkGlobs(include, exclude []string) error {
	for _, g := range include {
		if err := source.CheckGlob(g); err != nil {
			return fmt.Errorf("include: %w", err)
		}
	}
	for _, g := range exclude {
		if err := source.CheckGlob(g); err != nil {
			return fmt.Errorf("exclude: %w", err)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// List is every configured source, vault first, then by id. stateDir is
// where url sources are mirrored (see MirrorDir, CheckoutDir).
func (s Sources) List(vaultDir, stateDir string) []source.Source {
	out := []source.Source{{ID: source.Vault, Kind: source.KindVault, Root: vaultDir}}
	ids := append(sortedKeys(s.Git), sortedKeys(s.Folders)...)
	sort.Strings(ids)
	for _, id := range ids {
		if g, ok := s.Git[id]; ok {
			root := g.Path
			if g.URL != "" {
				root = CheckoutDir(stateDir, id)
			}
			out = append(out, source.Source{ID: id, Kind: source.KindGit, Root: root, Include: g.Include, Exclude: g.Exclude})
			continue
		}
		f := s.Folders[id]
		root, paths := folderRoot(f.Paths)
		out = append(out, source.Source{ID: id, Kind: source.KindFolder, Root: root, Paths: paths, Include: f.Include, Exclude: f.Exclude})
	}
	return out
}

// MirrorDir is where the url source id is mirrored: a bare clone Quire
// owns, in the state folder.
func MirrorDir(stateDir, id string) string {
	return filepath.Join(stateDir, "sources", id, "mirror.git")
}

// CheckoutDir is where Quire keeps the files of the url source id's
// indexed revision, for front ends that read files (grep).
func CheckoutDir(stateDir, id string) string {
	return filepath.Join(stateDir, "sources", id, "files")
}

// folderRoot splits absolute globs into their common parent folder (the
// longest run of leading segments without a glob character, shared by
// all) and the globs relative to it.
func folderRoot(globs []string) (string, []string) {
	var common []string
	for i, g := range globs {
		segs := strings.Split(filepath.ToSlash(filepath.Clean(g)), "/")
		fixed := 0
		for fixed < len(segs) && !strings.ContainsAny(segs[fixed], "*?[") {
			fixed++
		}
		if i == 0 {
			common = segs[:fixed]
			continue
		}
		n := 0
		for n < len(common) && n < fixed && common[n] == segs[n] {
			n++
		}
		common = common[:n]
	}
	root := strings.Join(common, "/")
	if root == "" {
		root = "/"
	}
	rel := make([]string, len(globs))
	for i, g := range globs {
		s := filepath.ToSlash(filepath.Clean(g))
		if !strings.ContainsAny(s, "*?[") {
			s += "/**"
		}
		rel[i] = strings.TrimPrefix(strings.TrimPrefix(s, root), "/")
	}
	return filepath.FromSlash(root), rel
}
