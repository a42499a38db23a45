package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUpdateKeepsOtherKeysAndComments(t *testing.T) {
	dir := t.TempDir()
	orig := "# my settings\nchunk:\n  max_tokens: 300 # tuned by hand\nmodel:\n  provider: ollama\n  model: llama3\n  timeout: 90s\n  api_key_env: MY_KEY\n"
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Ignore = []string{"Archive/", "Templates/"}
	cfg.Folder = "Generated"
	cfg.Dense.Embedder = "none"
	cfg.Model.Provider = "openai"
	cfg.Model.Endpoint = "http://127.0.0.1:8080"
	cfg.Model.Model = "qwen"
	cfg.Model.APIKey = "sk-secret"
	cfg.Model.Remote = "true"
	if err := Update(dir, cfg); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{"# my settings", "# tuned by hand", "max_tokens: 300", "timeout: 90s", "api_key_env: MY_KEY", "remote: \"true\""} {
		if !strings.Contains(text, want) {
			t.Errorf("config.yaml lost %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "sk-secret") {
		t.Errorf("config.yaml holds the API key:\n%s", text)
	}
	got, warnings, err := Load(dir)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("reload: %v %v\n%s", err, warnings, text)
	}
	if strings.Join(got.Ignore, ",") != "Archive/,Templates/" || got.Folder != "Generated" || got.Dense.Embedder != "none" ||
		got.Model.Provider != "openai" || got.Model.Endpoint != "http://127.0.0.1:8080" || got.Model.Model != "qwen" || got.Chunk.MaxTokens != 300 {
		t.Errorf("reloaded %+v", got)
	}
}

func TestUpdateCreatesTheFile(t *testing.T) {
	dir := t.TempDir()
	cfg := Default()
	cfg.Ignore = []string{"Private/"}
	if err := Update(dir, cfg); err != nil {
		t.Fatal(err)
	}
	got, _, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Ignore) != 1 || got.Ignore[0] != "Private/" || got.Folder != "Quire" {
		t.Errorf("reloaded %+v", got)
	}
}

func TestUpdateRefusesANonMappingFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("- a\n- b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Update(dir, Default()); err == nil {
		t.Error("Update over a list succeeded")
	}
}
