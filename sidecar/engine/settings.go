package engine

import (
	"slices"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/llm"
)

// Settings are the parts of the configuration a front end may change
// while the engine runs.
type Settings struct {
	Ignore   []string
	Folder   string
	Embedder string
	// Model is the language model; its APIKey never leaves the engine
	// through Settings (it is blanked), but a new one may come in.
	Model llm.Config
	// Rerank is search.rerank (off, builtin, endpoint) and Reranker the
	// reranker server; of it a front end sets the provider, endpoint,
	// model and remote, while its key, key variable and timeout stay
	// config.yaml's.
	Rerank   string
	Reranker config.Rerank
}

// settingsOf is what a front end may see of cfg.
func settingsOf(cfg config.Config) Settings {
	r := cfg.Rerank
	r.APIKey = ""
	return Settings{Ignore: slices.Clone(cfg.Ignore), Folder: cfg.Folder, Embedder: cfg.Dense.Embedder, Model: cfg.Model,
		Rerank: cfg.Search.Rerank, Reranker: r}
}

// Settings returns the settings in force.
func (e *Engine) Settings() Settings { return settingsOf(e.Config()) }

// SetSettings validates s, keeps it in config.yaml (when the engine has a
// state folder) and applies it: a new model answers the next question, a
// new ignore list or folder starts an index pass. A changed embedder needs
// vectors rebuilt with another model, which happens when the engine next
// starts, so it is listed in restart and also kept. Only the model fields
// of s.Model that a front end edits (provider, endpoint, model, embed
// model, API key, and remote when not empty) are taken, and of the
// reranker its provider, endpoint, model and remote.
func (e *Engine) SetSettings(s Settings) (applied Settings, restart []string, err error) {
	e.cfgMu.Lock()
	old := e.cfg
	cfg := old
	cfg.Ignore = slices.Clone(s.Ignore)
	cfg.Folder = s.Folder
	cfg.Dense.Embedder = s.Embedder
	m := s.Model
	cfg.Model.Provider, cfg.Model.Endpoint, cfg.Model.Model, cfg.Model.EmbedModel = m.Provider, m.Endpoint, m.Model, m.EmbedModel
	cfg.Model.APIKey = m.APIKey
	if m.Remote != "" {
		// Empty keeps what is set: a front end that does not know the
		// field must not turn a proxy the user called remote into a local
		// model that private notes reach.
		cfg.Model.Remote = m.Remote
	}
	cfg.Search.Rerank = s.Rerank
	r := s.Reranker
	cfg.Rerank.Provider, cfg.Rerank.Endpoint, cfg.Rerank.Model, cfg.Rerank.Remote = r.Provider, r.Endpoint, r.Model, r.Remote
	if err := cfg.Validate(); err != nil {
		e.cfgMu.Unlock()
		return Settings{}, nil, errorf(Invalid, "%v", err)
	}
	folderErr := e.folderErr
	if cfg.Folder != old.Folder {
		// A folder that is a file, or holds notes Quire did not write, is
		// refused by name: Quire would otherwise move, append to or
		// unindex the user's files there.
		err := config.CheckFolder(e.vault, cfg.Folder)
		if err == nil {
			err = compile.CheckOwned(e.vault, cfg.Folder)
		}
		if err != nil {
			e.cfgMu.Unlock()
			return Settings{}, nil, errorf(Invalid, "folder: %v", err)
		}
		folderErr = nil
	}
	if e.opts.StateDir != "" {
		if err := config.Update(e.opts.StateDir, cfg); err != nil {
			e.cfgMu.Unlock()
			return Settings{}, nil, err
		}
	}
	e.cfg = cfg
	e.folderErr = folderErr
	if cfg.Model != old.Model {
		e.model = ask.ModelFor(cfg.Model)
	}
	e.cfgMu.Unlock()
	if cfg.Search.Rerank != old.Search.Rerank || cfg.Rerank != old.Rerank {
		// The searcher is made from the configuration with each snapshot.
		if err := e.refresh(false); err != nil {
			return Settings{}, nil, err
		}
	}

	started := e.opts.Config
	if cfg.Dense.Embedder != started.Dense.Embedder || cfg.Dense.Embedder == "model" && cfg.Model.EmbedModel != started.Model.EmbedModel {
		restart = append(restart, "embedder")
	}
	if !slices.Equal(cfg.Ignore, old.Ignore) || cfg.Folder != old.Folder {
		folder := cfg.Folder
		if folderErr != nil {
			folder = "" // still the user's: index its raw/ and Inbox/
		}
		e.ix.SetPaths(cfg.Ignore, folder)
		e.kick()
	}
	e.log.Info("settings changed", "folder", cfg.Folder, "embedder", cfg.Dense.Embedder, "provider", cfg.Model.Provider, "model", cfg.Model.Model)
	return settingsOf(cfg), restart, nil
}
