package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/git"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/source"
	"github.com/quire-app/quire/sidecar/vault"
)

// SourceStatus is one source as `quire sources` lists it.
type SourceStatus struct {
	ID   string      `json:"id"`
	Kind source.Kind `json:"kind"`
	// Where is the clone's path, the remote's URL or the folder.
	Where string `json:"where"`
	// Revision is the git commit whose notes the index holds.
	Revision string `json:"revision,omitempty"`
	Notes    int    `json:"notes"`
	Passages int    `json:"passages"`
	Vectors  int    `json:"vectors"`
	// LastFetch is when a url source's mirror was last fetched;
	// LastSync when the index last caught up with the source.
	LastFetch time.Time `json:"lastFetch,omitzero"`
	LastSync  time.Time `json:"lastSync,omitzero"`
	// Error is why the last sync failed: the index serves what it holds.
	Error   string   `json:"error,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
}

// Sources lists the vault and every configured source with what the
// index holds of it.
func (e *Engine) Sources() ([]SourceStatus, error) {
	cfg := e.Config()
	entries, err := e.ix.Entries()
	if err != nil {
		return nil, err
	}
	var out []SourceStatus
	for _, src := range cfg.Sources.List(e.vault, e.stateDir()) {
		s := SourceStatus{ID: src.ID, Kind: src.Kind, Where: src.Root}
		if g, ok := cfg.Sources.Git[src.ID]; ok && g.URL != "" {
			s.Where = g.URL
		}
		byID := map[string]index.Entry{}
		for k, en := range entries {
			if id, _ := source.Split(k); id == src.ID {
				byID[k] = en
				s.Notes++
				s.Passages += en.Chunks
			}
		}
		s.Vectors = e.ix.DenseStatsOf(byID).Embedded
		if src.ID != source.Vault {
			st, err := e.ix.SourceState(src.ID)
			if err != nil {
				return nil, err
			}
			s.Revision, s.LastFetch, s.LastSync, s.Error = st.Revision, st.Fetched, st.Synced, st.Error
			for _, sk := range st.Skipped {
				s.Skipped = append(s.Skipped, sk.Path+": "+sk.Reason)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

func (e *Engine) stateDir() string {
	if e.st != nil {
		return e.st.Path
	}
	return e.opts.StateDir
}

// SyncSources brings every configured source up to date and drops the
// notes of sources no longer configured. fetch fetches the mirrors of url
// sources whatever their fetch policy (quire index, quire sources
// --fetch); otherwise a mirror is fetched when its "every" period has
// passed. A source that fails keeps what the index holds of it, and its
// error is recorded and returned; the others go on.
func (e *Engine) SyncSources(ctx context.Context, fetch bool) error {
	return e.syncSources(ctx, fetch, nil)
}

// syncSources is SyncSources for the sources ids; nil syncs all of them
// and drops those no longer configured.
func (e *Engine) syncSources(ctx context.Context, fetch bool, ids []string) error {
	cfg := e.Config()
	var errs []error
	want := map[string]bool{}
	for _, src := range cfg.Sources.List(e.vault, e.stateDir()) {
		if src.ID == source.Vault || ids != nil && !slices.Contains(ids, src.ID) {
			continue
		}
		want[src.ID] = true
		var err error
		switch src.Kind {
		case source.KindGit:
			err = e.syncGit(ctx, cfg, src, fetch)
		case source.KindFolder:
			_, err = e.ix.SyncFolder(ctx, src)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			err = fmt.Errorf("source %s: %w", src.ID, err)
			e.log.Warn(err.Error())
			if rerr := e.ix.RecordSourceError(src.ID, src.Kind, err.Error()); rerr != nil {
				err = rerr
			}
			errs = append(errs, err)
		}
	}
	if ids != nil && len(errs) == 0 {
		return nil
	}
	if ids != nil {
		return errs[0]
	}
	held, err := e.ix.Sources()
	if err != nil {
		return err
	}
	for _, id := range held {
		if !want[id] {
			n, err := e.ix.DropSource(ctx, id)
			if err != nil {
				return err
			}
			e.log.Info("source no longer configured: its notes left the index", "source", id, "notes", n)
		}
	}
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// fetchTimeout bounds a url source's clone and fetch.
const fetchTimeout = 5 * time.Minute

// syncGit fetches a url source's mirror when asked or due, then indexes
// the branch's head. A remote that cannot be reached leaves the mirror,
// and so the index, as they were.
func (e *Engine) syncGit(ctx context.Context, cfg config.Config, src source.Source, fetch bool) error {
	g := cfg.Sources.Git[src.ID]
	prev, err := e.ix.SourceState(src.ID)
	if err != nil {
		return err
	}
	var repo *git.Repo
	var fetched time.Time
	if g.URL != "" {
		// A remote that hangs must not hold the pass (and the queries
		// waiting on it) for ever.
		fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
		defer cancel()
		dir := config.MirrorDir(e.stateDir(), src.ID)
		repo, err = git.Mirror(fctx, g.URL, dir)
		if err != nil {
			return err
		}
		every, periodic := config.FetchEvery(g.Fetch)
		if fetch || prev.Fetched.IsZero() || periodic && time.Since(prev.Fetched) >= every {
			if err := repo.Fetch(fctx); err != nil {
				return err
			}
			fetched = time.Now().UTC()
		}
	} else if repo, err = git.Open(ctx, g.Path); err != nil {
		return err
	}
	rev, err := repo.Head(ctx, g.Branch)
	if err != nil {
		return err
	}
	if _, err := e.ix.SyncGit(ctx, src, repo, rev); err != nil {
		return err
	}
	if g.URL != "" {
		// The mirror has no files; grep reads this checkout of the
		// revision indexed.
		idx := filepath.Join(filepath.Dir(config.CheckoutDir(e.stateDir(), src.ID)), "checkout.index")
		if err := repo.Checkout(ctx, rev, config.CheckoutDir(e.stateDir(), src.ID), idx); err != nil {
			return err
		}
	}
	if !fetched.IsZero() {
		if err := e.ix.RecordFetch(src.ID, fetched); err != nil {
			return err
		}
	}
	if prev.Error != "" {
		// An unchanged revision writes no state: the error of a sync
		// that failed before is cleared here.
		return e.ix.RecordSourceError(src.ID, src.Kind, "")
	}
	return nil
}

// readNote reads the note at key as the index holds it: a vault file or a
// folder source's (vault.ReadFile's guards), or a git source's blob at
// the indexed revision, which a clone's checkout may no longer show.
func (e *Engine) readNote(key string, maxBytes int64) ([]byte, error) {
	id, rel := source.Split(key)
	if id == source.Vault {
		return vault.ReadFile(e.ix.Vault, key, maxBytes)
	}
	cfg := e.Config()
	for _, src := range cfg.Sources.List(e.vault, e.stateDir()) {
		if src.ID != id {
			continue
		}
		if src.Kind == source.KindFolder {
			return vault.ReadFile(src.Root, rel, maxBytes)
		}
		en, ok := e.snap.Load().notes.entry(key)
		if !ok {
			return nil, fs.ErrNotExist
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		repo, err := e.openGit(ctx, cfg, id)
		if err != nil {
			return nil, err
		}
		var data []byte
		err = repo.Read(ctx, []string{en.Hash}, maxBytes, func(_ string, b []byte, rerr error) error {
			data = b
			if errors.Is(rerr, git.ErrTooLarge) {
				return vault.ErrTooLarge
			}
			return rerr
		})
		return data, err
	}
	return nil, fs.ErrNotExist
}

// openGit opens the repository the git source id is read from: the clone,
// or the mirror in the state folder.
func (e *Engine) openGit(ctx context.Context, cfg config.Config, id string) (*git.Repo, error) {
	dir := cfg.Sources.Git[id].Path
	if dir == "" {
		dir = config.MirrorDir(e.stateDir(), id)
	}
	return git.Open(ctx, dir)
}

// Revision returns the git commit whose notes the index holds for the
// source id; empty for the vault, a folder source or a git source not
// yet indexed.
func (e *Engine) Revision(id string) (string, error) {
	if id == source.Vault {
		return "", nil
	}
	st, err := e.ix.SourceState(id)
	return st.Revision, err
}
