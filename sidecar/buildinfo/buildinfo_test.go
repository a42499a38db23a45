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

// TestPlaceholdersReadAsUnknown: GoReleaser's "none" commit and zero date
// (what it stamps when it cannot read git) are not shown as if real.
func TestPlaceholdersReadAsUnknown(t *testing.T) {
	oldCommit, oldDate := commit, date
	t.Cleanup(func() { commit, date = oldCommit, oldDate })
	commit, date = "none", "0001-01-01T00:00:00Z"
	in := Get()
	if in.Commit == "none" || strings.HasPrefix(in.Date, "0001-") {
		t.Fatalf("placeholders kept: commit %q, date %q", in.Commit, in.Date)
	}
	commit, date = "0123456789abcdef", "2026-12-01T22:00:00Z"
	in = Get()
	if in.Commit != "0123456789abcdef" || in.Date != "2026-12-01T22:00:00Z" {
		t.Fatalf("real stamps lost: commit %q, date %q", in.Commit, in.Date)
	}
	if s := in.String(); !strings.Contains(s, "(0123456789ab, 2026-12-01T22:00:00Z)") {
		t.Fatalf("String() = %q", s)
	}
}
