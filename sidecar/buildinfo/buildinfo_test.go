package buildinfo

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDefaultMatchesManifest keeps one version number for the plugin and
// the engine: manifest.json (the plugin's, at the repository root) and
// Default must agree, or the plugin would ask for an engine that a plain
// build does not claim to be.
func TestDefaultMatchesManifest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Version != Default {
		t.Fatalf("manifest.json version %q, buildinfo.Default %q: set both (scripts/release reads manifest.json)", m.Version, Default)
	}
}

func TestGetAndString(t *testing.T) {
	in := Get()
	if in.Version != Default || in.OS != runtime.GOOS || in.Arch != runtime.GOARCH || in.Go != runtime.Version() {
		t.Fatalf("Get() = %+v", in)
	}
	s := in.String()
	for _, want := range []string{"quire " + Default, runtime.GOOS + "/" + runtime.GOARCH, "PDF reading"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() = %q, lacks %q", s, want)
		}
	}
}
