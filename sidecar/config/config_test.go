package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/llm"
)

func TestDefaultIsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	cfg, warns, err := Load(t.TempDir())
	if err != nil || len(warns) != 0 {
		t.Fatalf("Load: %v %v", warns, err)
	}
	if cfg.Chunk.MaxTokens != Default().Chunk.MaxTokens {
		t.Errorf("got %+v, want defaults", cfg)
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name, yaml string
		wantErr    string
		wantWarn   string
		check      func(Config) bool
	}{
		{name: "comments and values", yaml: "# mine\nignore: [Templates/]\nchunk:\n  max_tokens: 300 # bigger\n",
			check: func(c Config) bool {
				return c.Chunk.MaxTokens == 300 && c.Chunk.OverlapTokens == 64 && c.Ignore[0] == "Templates/"
			}},
		{name: "unknown key warns", yaml: "chunk:\n  max_tokns: 300\ncolour: red\n", wantWarn: `"chunk.max_tokns"`,
			check: func(c Config) bool { return c.Chunk.MaxTokens == 256 }},
		{name: "bad value names key", yaml: "chunk:\n  overlap_tokens: 900\n", wantErr: "chunk.overlap_tokens"},
		{name: "wrong type", yaml: "search:\n  k: many\n", wantErr: "config.yaml"},
		{name: "model embedder needs a model", yaml: "dense:\n  embedder: model\n", wantErr: "model.embed_model"},
		{name: "unknown embedder", yaml: "dense:\n  embedder: magic\n", wantErr: "dense.embedder"},
		{name: "search defaults", yaml: "search:\n  k: 5\n",
			check: func(c Config) bool { return c.Search.Coordination == "words" && c.Search.PerNote == 3 }},
		{name: "earlier query", yaml: "search:\n  coordination: fields\n  per_note: 0\n",
			check: func(c Config) bool { return c.Search.Coordination == "fields" && c.Search.PerNote == 0 }},
		{name: "unknown coordination", yaml: "search:\n  coordination: clauses\n", wantErr: "search.coordination"},
		{name: "negative workers", yaml: "dense:\n  workers: -1\n", wantErr: "dense.workers"},
		{name: "model", yaml: "model:\n  provider: ollama\n  model: qwen3:8b\n  timeout: 90s\n  context_tokens: 8192\n",
			check: func(c Config) bool {
				return c.Model.Provider == "ollama" && c.Model.Model == "qwen3:8b" && c.Model.Timeout == 90*time.Second && c.Model.ContextTokens == 8192
			}},
		{name: "model keeps its default timeout", yaml: "model:\n  provider: openai\n  model: gpt-4.1-mini\n",
			check: func(c Config) bool { return c.Model.Timeout == llm.Default().Timeout }},
		{name: "bad model value names model.key", yaml: "model:\n  provider: gpt\n  model: x\n", wantErr: "model.provider"},
		{name: "model without a model name", yaml: "model:\n  provider: ollama\n", wantErr: "model.model"},
		{name: "nan title weight", yaml: "search:\n  fields:\n    title: .nan\n", wantErr: "search.fields.title: must be a finite"},
		{name: "nan prefer_language", yaml: "search:\n  prefer_language: .NaN\n", wantErr: "search.prefer_language: must be a finite"},
		{name: "nan dense_weight", yaml: "search:\n  dense_weight: .nan\n", wantErr: "search.dense_weight: must be a finite"},
		{name: "infinite headings weight", yaml: "search:\n  fields:\n    headings: -.inf\n", wantErr: "search.fields.headings: must be a finite"},
		{name: "unknown model key warns", yaml: "model:\n  temprature: 1\n", wantWarn: `"model.temprature"`,
			check: func(c Config) bool { return c.Model.Provider == "" }},
		{name: "rerank off by default", yaml: "search:\n  k: 5\n",
			check: func(c Config) bool { return c.Rerank.Provider == "" && c.Rerank.Timeout == 5*time.Second }},
		{name: "rerank tei", yaml: "rerank:\n  provider: tei\n  endpoint: http://127.0.0.1:8081/\n  timeout: 2s\n",
			check: func(c Config) bool {
				return c.Rerank.BaseURL() == "http://127.0.0.1:8081" && c.Rerank.Local() && c.Rerank.Timeout == 2*time.Second
			}},
		{name: "rerank cohere is remote", yaml: "rerank:\n  provider: cohere\n  model: rerank-v3.5\n",
			check: func(c Config) bool {
				return c.Rerank.BaseURL() == "https://api.cohere.com" && !c.Rerank.Local() && c.Rerank.KeyEnv() == "COHERE_API_KEY"
			}},
		{name: "rerank remote forced", yaml: "rerank:\n  provider: llamacpp\n  remote: \"true\"\n",
			check: func(c Config) bool { return !c.Rerank.Local() && c.Rerank.KeyEnv() == "" }},
		{name: "rerank unknown provider", yaml: "rerank:\n  provider: openai\n", wantErr: "rerank.provider"},
		{name: "rerank jina needs a model", yaml: "rerank:\n  provider: jina\n", wantErr: "rerank.model"},
		{name: "rerank bad endpoint", yaml: "rerank:\n  provider: tei\n  endpoint: ftp://x\n", wantErr: "rerank.endpoint"},
		{name: "rerank endpoint with credentials", yaml: "rerank:\n  provider: tei\n  endpoint: http://u:p@x\n", wantErr: "rerank.endpoint"},
		{name: "rerank bad key env", yaml: "rerank:\n  provider: tei\n  api_key_env: A-B\n", wantErr: "rerank.api_key_env"},
		{name: "rerank zero timeout", yaml: "rerank:\n  provider: tei\n  timeout: 0s\n", wantErr: "rerank.timeout"},
		{name: "rerank bad remote", yaml: "rerank:\n  provider: tei\n  remote: maybe\n", wantErr: "rerank.remote"},
		{name: "unknown rerank key warns", yaml: "rerank:\n  top_n: 5\n", wantWarn: `"rerank.top_n"`,
			check: func(c Config) bool { return c.Rerank.Provider == "" }},
		{name: "mcp withholds private notes by default", yaml: "k: 1\n", wantWarn: `"k"`,
			check: func(c Config) bool { return c.MCP.Private == "withhold" }},
		{name: "mcp private include", yaml: "mcp:\n  private: include\n",
			check: func(c Config) bool { return c.MCP.Private == "include" }},
		{name: "mcp private unknown", yaml: "mcp:\n  private: yes\n", wantErr: "mcp.private"},
		{name: "private entry that names no folder", yaml: "private: [Journal/, \"Jour*/\"]\n", wantErr: `private: "Jour*/"`},
		{name: "private entries as people type them", yaml: "private: [./Journal/*, \" Health\", Work/boss.md]\n",
			check: func(c Config) bool {
				p := c.PrivateNotes()
				return p.Holds("Journal/a.md") && p.Holds("Health/b.md") && p.Holds("Work/boss.md") && !p.Holds("Work/todo.md")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, FileName), []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, warns, err := Load(dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantWarn != "" && (len(warns) == 0 || !strings.Contains(strings.Join(warns, ";"), tt.wantWarn)) {
				t.Errorf("warnings = %v, want one naming %s", warns, tt.wantWarn)
			}
			if !tt.check(cfg) {
				t.Errorf("got %+v", cfg)
			}
		})
	}
}

func TestValidFolder(t *testing.T) {
	tests := []struct {
		folder string
		ok     bool
	}{
		{"Quire", true},
		{"Notes/Quire", true},
		{"Généré", true},
		{"Quire\x00x", false},
		{"Quire\nx", false},
		{"Qu\u200bire", false},
		{"Kitchen/.obsidian", false},
		{".quire", false},
		{"a/../b", false},
		{"./Quire", false},
		{"Quire/", false},
		{"a//b", false},
		{" /etc", false},
		{"/etc", false},
		{`C:\Quire`, false},
		{"Quire.", false},
		{"Quire ", false},
		{strings.Repeat("x", 5000), false},
		{strings.Repeat("x", 255), true},
		{"", false},
		{"CON", false},
		{"Notes/con", false},
		{"nul.txt", false},
		{"Quire/COM1", false},
		{"lpt9", false},
		{"COM¹", false},
		{"Quire/a:b", false},
		{"what?", false},
		{"Console", true},
		{"COM10", true},
		{"Conference notes", true},
	}
	for _, tt := range tests {
		err := ValidFolder(tt.folder)
		if (err == nil) != tt.ok {
			t.Errorf("ValidFolder(%q) = %v, want ok=%v", tt.folder, err, tt.ok)
		}
	}
	c := Default()
	c.Folder = "Quire\x00x"
	if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), "folder:") {
		t.Errorf("Validate with folder %q = %v, want a folder: error", c.Folder, err)
	}
}

func TestCheckFolderFile(t *testing.T) {
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "Welcome.md"), []byte("hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckFolder(vault, "Welcome.md"); err == nil || !strings.Contains(err.Error(), "existing file") {
		t.Errorf("CheckFolder(Welcome.md) = %v, want an existing-file error", err)
	}
	if err := CheckFolder(vault, "Quire"); err != nil {
		t.Errorf("CheckFolder(Quire) = %v, want nil", err)
	}
}
