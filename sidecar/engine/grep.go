package engine

import (
	"context"
	"errors"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/grep"
	"github.com/quire-app/quire/sidecar/index"
)

// VaultSource is the source id of the vault itself.
const VaultSource = "vault"

// Grep searches the current files of the vault for a literal string or a
// regular expression (grep.Search), under the index's path rules and size
// cap. mcp true, as the MCP tool asks, withholds private notes as Note
// does, and notes the index does not hold yet, whose private mark is not
// known.
func (e *Engine) Grep(ctx context.Context, o grep.Options, mcp bool) (grep.Result, error) {
	root := grep.Root{Source: VaultSource, Dir: e.ix.Vault, Rules: e.ix.Rules()}
	if e.withholds(mcp) {
		snap := e.snap.Load()
		root.Hide = func(rel string) bool {
			_, indexed := snap.entries[rel]
			return !indexed || snap.private.Holds(rel)
		}
	}
	return runGrep(ctx, root, o, e.Config())
}

// GrepFiles is Grep for a command that leaves the vault's index alone:
// it reads the config in stateDir, takes no lock, and withholds nothing
// (the person at this machine asks).
func GrepFiles(ctx context.Context, vaultDir, stateDir string, o grep.Options) (grep.Result, error) {
	cfg, _, err := config.Load(stateDir)
	if err != nil {
		return grep.Result{}, err
	}
	return runGrep(ctx, grep.Root{Source: VaultSource, Dir: vaultDir, Rules: index.RulesOf(vaultDir, cfg)}, o, cfg)
}

func runGrep(ctx context.Context, root grep.Root, o grep.Options, cfg config.Config) (grep.Result, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = cfg.MaxFileBytes
	}
	res, err := grep.Search(ctx, []grep.Root{root}, o)
	if errors.Is(err, grep.ErrPattern) || errors.Is(err, grep.ErrOption) {
		return res, errorf(Invalid, "%s", err.Error())
	}
	return res, err
}
