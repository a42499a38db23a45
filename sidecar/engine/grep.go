package engine

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/grep"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/source"
	"github.com/quire-app/quire/sidecar/vault"
)

// Grep searches the current files of the vault and of every configured
// source for a literal string or a regular expression (grep.Search):
// the vault under the index's path rules, a source under its paths,
// include and exclude, files up to the size cap. mcp true, as the MCP
// tool asks, withholds private notes as Note does, and notes the index
// does not hold yet, whose private mark is not known.
func (e *Engine) Grep(ctx context.Context, o grep.Options, mcp bool) (grep.Result, error) {
	var hide func(key string) bool
	if e.withholds(mcp) {
		snap := e.snap.Load()
		hide = func(key string) bool {
			_, indexed := snap.notes.entry(key)
			return !indexed || snap.private.Holds(key)
		}
	}
	cfg := e.Config()
	return runGrep(ctx, grepRoots(e.ix.Vault, e.stateDir(), cfg, e.ix.Rules(), hide), o, cfg)
}

// GrepFiles is Grep for a command that leaves the index alone: it reads
// the config in stateDir, takes no lock, and withholds nothing (the
// person at this machine asks).
func GrepFiles(ctx context.Context, vaultDir, stateDir string, o grep.Options) (grep.Result, error) {
	if st, err := os.Stat(vaultDir); err != nil || !st.IsDir() {
		return grep.Result{}, fmt.Errorf("%w: %s", vault.ErrNoVault, vaultDir)
	}
	cfg, _, err := config.Load(stateDir)
	if err != nil {
		return grep.Result{}, err
	}
	return runGrep(ctx, grepRoots(vaultDir, stateDir, cfg, index.RulesOf(vaultDir, cfg), nil), o, cfg)
}

// grepRoots are the folders a grep reads: the vault's, then each
// source's current files (a clone's working tree, a folder; a url
// source's checkout). hide, when set, is asked about each file by its
// key (source.Key).
func grepRoots(vaultDir, stateDir string, cfg config.Config, rules vault.Rules, hide func(key string) bool) []grep.Root {
	var roots []grep.Root
	for _, src := range cfg.Sources.List(vaultDir, stateDir) {
		r := grep.Root{Source: src.ID, Dir: src.Root, Rules: sourceRules{src}}
		if src.ID == source.Vault {
			r.Rules = notesOnly{rules}
		}
		if hide != nil {
			id := src.ID
			r.Hide = func(rel string) bool { return hide(source.Key(id, rel)) }
		}
		roots = append(roots, r)
	}
	return roots
}

// notesOnly are the vault's rules for grep: the notes, not the PDFs the
// index also reads (their bytes are no text to match, and each would be
// reported skipped as binary).
type notesOnly struct{ vault.Rules }

func (r notesOnly) Indexable(rel string) bool { return !vault.IsPDF(rel) && r.Rules.Indexable(rel) }

// sourceRules are a source's globs as grep's rules.
type sourceRules struct{ source.Source }

func (r sourceRules) Indexable(rel string) bool { return r.Match(rel) }
func (r sourceRules) SkipDir(rel string) bool   { return r.Prune(rel) }

func runGrep(ctx context.Context, roots []grep.Root, o grep.Options, cfg config.Config) (grep.Result, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = cfg.MaxFileBytes
	}
	res, err := grep.Search(ctx, roots, o)
	if errors.Is(err, grep.ErrPattern) || errors.Is(err, grep.ErrOption) {
		return res, errorf(Invalid, "%s", err.Error())
	}
	return res, err
}
