package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/grep"
)

// TestGrepSources: grep reads the vault and every source's current files
// (a git clone's working tree, a folder under its globs; a url source with
// no checkout is named as skipped), a source filter keeps one, and for MCP
// a private source folder and a file the index does not hold yet are left
// out; the person at the machine (GrepFiles, no lock) sees them all.
func TestGrepSources(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	vaultDir, stateDir := filepath.Join(dir, "vault"), filepath.Join(dir, "state")
	writeNotes(t, vaultDir, map[string]string{"Home.md": "# Home\n\nhost db-01.lan\n"})
	clone, folder := filepath.Join(dir, "ops"), filepath.Join(dir, "work")
	writeNotes(t, clone, map[string]string{"runbooks/deploy.md": "# Deploy\n\nssh db-01.lan\n", "secrets/keys.md": "# Keys\n\ndb-01.lan root\n"})
	gitIn(t, clone, "init", "-q", "-b", "main")
	gitIn(t, clone, "add", "-A")
	gitIn(t, clone, "commit", "-q", "-m", "first")
	remote := filepath.Join(dir, "travel.git")
	gitIn(t, dir, "clone", "-q", "--bare", clone, remote)
	writeNotes(t, folder, map[string]string{"plan.md": "# Plan\n\nmove db-01.lan\n", "drafts/x.md": "db-01.lan draft\n"})
	cfg := "sources:\n  git:\n    ops:\n      path: " + clone + "\n    travel:\n      url: file://" + remote + "\n" +
		"  folders:\n    work:\n      paths: [\"" + folder + "/**\"]\n      exclude: [\"drafts/**\"]\nprivate: [\"ops:secrets/\"]\ndense:\n  embedder: none\n"
	os.MkdirAll(stateDir, 0o755)
	if err := os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	keys := func(res grep.Result) string {
		var out []string
		for _, m := range res.Matches {
			out = append(out, m.Source+":"+m.Path)
		}
		return strings.Join(out, " ")
	}
	all := "vault:Home.md ops:runbooks/deploy.md ops:secrets/keys.md work:plan.md"
	res, err := engine.GrepFiles(ctx, vaultDir, stateDir, grep.Options{Pattern: "db-01.lan"})
	if err != nil || keys(res) != all {
		t.Errorf("GrepFiles: %q, %v; want %q", keys(res), err, all)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Source != "travel" {
		t.Errorf("skipped %+v, want the url source, which has no files to read", res.Skipped)
	}
	e, err := engine.Open(engine.Setup{Vault: vaultDir, State: stateDir})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	writeNotes(t, folder, map[string]string{"new.md": "db-01.lan, not indexed yet\n"})
	// Once indexed, the url source's revision is checked out in the
	// state folder, and grep reads it.
	res, err = e.Grep(ctx, grep.Options{Pattern: "db-01.lan"}, false)
	if want := "vault:Home.md ops:runbooks/deploy.md ops:secrets/keys.md travel:runbooks/deploy.md travel:secrets/keys.md work:new.md work:plan.md"; err != nil || keys(res) != want {
		t.Errorf("Grep: %q, %v; want %q", keys(res), err, want)
	}
	res, err = e.Grep(ctx, grep.Options{Pattern: "db-01.lan"}, true)
	if want := "vault:Home.md ops:runbooks/deploy.md travel:runbooks/deploy.md travel:secrets/keys.md work:plan.md"; err != nil || keys(res) != want {
		t.Errorf("Grep for MCP: %q, %v; want %q", keys(res), err, want)
	}
	res, err = e.Grep(ctx, grep.Options{Pattern: "db-01.lan", Source: "work"}, false)
	if want := "work:new.md work:plan.md"; err != nil || keys(res) != want {
		t.Errorf("Grep in work: %q, %v; want %q", keys(res), err, want)
	}
}
