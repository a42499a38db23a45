package server

import (
	"slices"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/config"
)

// config returns the configuration in force; config.set replaces it.
func (s *Server) config() config.Config {
	s.cfgMu.RLock()
	defer s.cfgMu.RUnlock()
	return s.cfg
}

// answerModel returns the language model in force; nil when none.
func (s *Server) answerModel() ask.Model {
	s.cfgMu.RLock()
	defer s.cfgMu.RUnlock()
	return s.model
}

// settings is what config.get shows of cfg; the API key itself never
// leaves the sidecar.
func settings(cfg config.Config) proto.Settings {
	return proto.Settings{
		Ignore:   slices.Clone(cfg.Ignore),
		Folder:   cfg.Folder,
		Embedder: cfg.Dense.Embedder,
		Model: proto.ModelSettings{
			Provider:   cfg.Model.Provider,
			Endpoint:   cfg.Model.Endpoint,
			Model:      cfg.Model.Model,
			EmbedModel: cfg.Model.EmbedModel,
			APIKeySet:  cfg.Model.APIKey != "",
		},
	}
}

func (s *Server) configGet() proto.ConfigResult {
	return proto.ConfigResult{Settings: settings(s.config())}
}

// configSet validates the new settings, keeps them in config.yaml (when
// the server has a state folder) and applies them: a new model answers the
// next question, a new ignore list or folder starts an index pass. A changed
// embedder needs vectors rebuilt with another model, which the sidecar
// does when it starts, so it is listed in Restart and also kept.
func (s *Server) configSet(q proto.ConfigSet) (proto.ConfigResult, error) {
	s.cfgMu.Lock()
	old := s.cfg
	cfg := old
	cfg.Ignore = slices.Clone(q.Settings.Ignore)
	cfg.Folder = q.Settings.Folder
	cfg.Dense.Embedder = q.Settings.Embedder
	m := q.Settings.Model
	cfg.Model.Provider, cfg.Model.Endpoint, cfg.Model.Model, cfg.Model.EmbedModel = m.Provider, m.Endpoint, m.Model, m.EmbedModel
	cfg.Model.APIKey = m.APIKey
	if err := cfg.Validate(); err != nil {
		s.cfgMu.Unlock()
		return proto.ConfigResult{}, &proto.Error{Code: proto.CodeInvalidRequest, Message: "config.set: " + err.Error()}
	}
	if s.opts.StateDir != "" {
		if err := config.Update(s.opts.StateDir, cfg); err != nil {
			s.cfgMu.Unlock()
			return proto.ConfigResult{}, err
		}
	}
	s.cfg = cfg
	if cfg.Model != old.Model {
		s.model = ask.ModelFor(cfg.Model)
	}
	s.cfgMu.Unlock()

	var restart []string
	if cfg.Dense.Embedder != s.opts.Config.Dense.Embedder || cfg.Dense.Embedder == "model" && cfg.Model.EmbedModel != s.opts.Config.Model.EmbedModel {
		restart = append(restart, "embedder")
	}
	if !slices.Equal(cfg.Ignore, old.Ignore) || cfg.Folder != old.Folder {
		s.ix.SetPaths(cfg.Ignore, cfg.Folder)
		s.kick()
	}
	s.log.Info("settings changed", "folder", cfg.Folder, "embedder", cfg.Dense.Embedder, "provider", cfg.Model.Provider, "model", cfg.Model.Model)
	return proto.ConfigResult{Settings: settings(cfg), Restart: restart}, nil
}
