package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/quire-app/quire/sidecar/state"
)

// Update writes the settings a client may change at run time (ignore,
// folder, dense.embedder and the model's provider, endpoint, model,
// embed_model and remote) from c into <stateDir>/config.yaml, keeping every other key
// and the comments the user wrote there. The API key is never written: a
// key given by the plugin lives in the sidecar's memory only.
func Update(stateDir string, c Config) error {
	path := filepath.Join(stateDir, FileName)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("update config: %w", err)
	}
	var doc yaml.Node
	if len(bytes.TrimSpace(data)) > 0 {
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("update config: %s: %w", path, err)
		}
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("update config: %s: the top level is not a mapping", path)
	}
	ignore := &yaml.Node{Kind: yaml.SequenceNode}
	for _, p := range c.Ignore {
		ignore.Content = append(ignore.Content, scalar(p))
	}
	set(root, ignore, "ignore")
	set(root, scalar(c.Folder), "folder")
	set(root, scalar(c.Dense.Embedder), "dense", "embedder")
	set(root, scalar(c.Model.Provider), "model", "provider")
	set(root, scalar(c.Model.Endpoint), "model", "endpoint")
	set(root, scalar(c.Model.Model), "model", "model")
	set(root, scalar(c.Model.EmbedModel), "model", "embed_model")
	if c.Model.Remote != "" {
		set(root, scalar(c.Model.Remote), "model", "remote")
	}
	set(root, scalar(c.Search.Rerank), "search", "rerank")
	// A reranker is written once there is one, or a rerank: to change;
	// its key and timeout stay as the user wrote them.
	if c.Rerank.Provider != "" || has(root, "rerank") {
		set(root, scalar(c.Rerank.Provider), "rerank", "provider")
		set(root, scalar(c.Rerank.Endpoint), "rerank", "endpoint")
		set(root, scalar(c.Rerank.Model), "rerank", "model")
		if c.Rerank.Remote != "" {
			set(root, scalar(c.Rerank.Remote), "rerank", "remote")
		}
	}

	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return fmt.Errorf("update config: %w", err)
	}
	return state.WriteFile(path, buf.Bytes(), 0o600)
}

// has reports whether mapping m holds key.
func has(m *yaml.Node, key string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// set puts value at the key path under m, making mappings on the way and
// keeping a replaced value's comments.
func set(m *yaml.Node, value *yaml.Node, path ...string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != path[0] {
			continue
		}
		old := m.Content[i+1]
		if len(path) == 1 {
			value.HeadComment, value.LineComment, value.FootComment = old.HeadComment, old.LineComment, old.FootComment
			m.Content[i+1] = value
			return
		}
		if old.Kind != yaml.MappingNode {
			m.Content[i+1] = &yaml.Node{Kind: yaml.MappingNode}
		}
		set(m.Content[i+1], value, path[1:]...)
		return
	}
	if len(path) == 1 {
		m.Content = append(m.Content, scalar(path[0]), value)
		return
	}
	child := &yaml.Node{Kind: yaml.MappingNode}
	m.Content = append(m.Content, scalar(path[0]), child)
	set(child, value, path[1:]...)
}
