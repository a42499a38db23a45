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
	"github.com/quire-app/quire/sidecar/search"
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.org", "-c", "user.name=t"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestSources indexes a git clone read in place, a remote mirrored into
// the state folder and a folder beside the vault: their passages carry
// their source, a filter takes a source like a folder, private takes a
// source's folder, a git note is read at its indexed revision, an
// unreachable remote keeps serving what was indexed with its error
// listed, and a source taken out of the config leaves the index.
func TestSources(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	vaultDir, stateDir := filepath.Join(dir, "vault"), filepath.Join(dir, "state")
	writeNotes(t, vaultDir, map[string]string{"Home.md": "# Home\n\nMy own note about sourdough.\n"})
	clone, folder := filepath.Join(dir, "ops"), filepath.Join(dir, "work")
	writeNotes(t, clone, map[string]string{
		"runbooks/deploy.md": "# Deploy\n\nRoll the kubernetes pods one by one.\n",
		"secrets/keys.md":    "# Keys\n\nThe kubernetes token rotates monthly.\n",
	})
	gitIn(t, clone, "init", "-q", "-b", "main")
	gitIn(t, clone, "add", "-A")
	gitIn(t, clone, "commit", "-q", "-m", "first")
	remote := filepath.Join(dir, "travel.git")
	gitIn(t, dir, "clone", "-q", "--bare", clone, remote)
	writeNotes(t, folder, map[string]string{"plan.md": "# Plan\n\nThe kubernetes migration plan.\n", "drafts/x.md": "# X\n\nkubernetes draft\n"})
	cfg := "sources:\n  git:\n    ops:\n      path: " + clone + "\n    travel:\n      url: file://" + remote + "\n" +
		"  folders:\n    work:\n      paths: [\"" + folder + "/**\"]\n      exclude: [\"drafts/**\"]\nprivate: [\"ops:secrets/\"]\ndense:\n  embedder: none\n"
	os.MkdirAll(stateDir, 0o755)
	if err := os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func() *engine.Engine {
		e, err := engine.Open(engine.Setup{Vault: vaultDir, State: stateDir})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	r, err := e.Reindex(ctx, false, nil)
	if err != nil || r.SourcesErr != nil {
		t.Fatal(err, r.SourcesErr)
	}
	paths := func(q engine.Query) []string {
		t.Helper()
		q.Channel = search.BM25
		res, err := e.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range res.Passages {
			out = append(out, p.Path)
		}
		return out
	}
	got := strings.Join(paths(engine.Query{Text: "kubernetes", K: 10}), " ")
	for _, want := range []string{"ops:runbooks/deploy.md", "ops:secrets/keys.md", "travel:runbooks/deploy.md", "work:plan.md"} {
		if !strings.Contains(got, want) {
			t.Errorf("search found %s, not %s", got, want)
		}
	}
	if strings.Contains(got, "drafts") {
		t.Errorf("an excluded note was indexed: %s", got)
	}
	if got := paths(engine.Query{Text: "kubernetes", Filter: search.Filter{Folder: "ops:"}}); len(got) != 2 || !strings.HasPrefix(got[0], "ops:") || !strings.HasPrefix(got[1], "ops:") {
		t.Errorf("filter ops: found %v", got)
	}
	if got := paths(engine.Query{Text: "kubernetes", MCP: true}); strings.Contains(strings.Join(got, " "), "ops:secrets") || !strings.Contains(strings.Join(got, " "), "travel:secrets") {
		t.Errorf("an MCP client got the private ops:secrets/: %v", got)
	}
	// A url source's files are checked out in the state folder, for grep.
	if b, err := os.ReadFile(filepath.Join(stateDir, "sources", "travel", "files", "runbooks", "deploy.md")); err != nil || !strings.Contains(string(b), "one by one") {
		t.Errorf("the travel checkout: %q, %v", b, err)
	}
	text, err := e.Note(ctx, "travel:runbooks/deploy.md", false)
	if err != nil || !strings.Contains(text, "one by one") {
		t.Errorf("Note(travel:runbooks/deploy.md) = %q, %v", text, err)
	}
	// The clone's checkout moves on without a commit: the note is read at
	// the revision indexed, as its passages were.
	writeNotes(t, clone, map[string]string{"runbooks/deploy.md": "# Deploy\n\nUncommitted.\n"})
	if text, err := e.Note(ctx, "ops:runbooks/deploy.md", false); err != nil || !strings.Contains(text, "one by one") {
		t.Errorf("Note(ops:runbooks/deploy.md) = %q, %v; want the indexed revision's text", text, err)
	}

	// The table of contents of a source: folder, note, title, headings;
	// an MCP client's leaves the private folder out.
	toc, err := e.TOC(ctx, "ops", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(toc.Folders) != 2 || toc.Folders[0].Folder != "runbooks" || toc.Folders[0].Notes[0].Title != "Deploy" ||
		len(toc.Folders[0].Notes[0].Headings) == 0 || toc.Revision == "" {
		t.Errorf("TOC(ops) = %+v", toc)
	}
	if toc, err := e.TOC(ctx, "ops", true); err != nil || len(toc.Folders) != 1 || toc.Withheld != 1 {
		t.Errorf("TOC(ops) for MCP = %+v, %v; want secrets/ withheld", toc, err)
	}
	if _, err := e.TOC(ctx, "nope", false); err == nil {
		t.Error("TOC of an unknown source: no error")
	}

	// The remote goes away: its notes stay searchable, its error listed.
	if err := os.Rename(remote, remote+".gone"); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncSources(ctx, true); err == nil || !strings.Contains(err.Error(), "source travel") {
		t.Errorf("SyncSources with the remote gone: %v", err)
	}
	list, err := e.Sources()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]engine.SourceStatus{}
	for _, s := range list {
		byID[s.ID] = s
	}
	if s := byID["travel"]; s.Notes != 2 || s.Error == "" || s.Revision == "" || s.LastFetch.IsZero() {
		t.Errorf("travel after its remote went: %+v", s)
	}
	if s := byID["ops"]; s.Kind != "git" || s.Notes != 2 || s.Passages != 2 || s.Error != "" {
		t.Errorf("ops: %+v", s)
	}
	if s := byID["vault"]; s.Notes != 1 {
		t.Errorf("vault: %+v", s)
	}
	// Back again, with no new commit: the error is cleared.
	if err := os.Rename(remote+".gone", remote); err != nil {
		t.Fatal(err)
	}
	if err := e.SyncSources(ctx, true); err != nil {
		t.Fatal(err)
	}
	if list, _ := e.Sources(); list[2].ID != "travel" || list[2].Error != "" {
		t.Errorf("travel's error stays after a sync that succeeded: %+v", list[2])
	}
	e.Close()

	// Taken out of the config, a source leaves the index.
	if err := os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte("dense:\n  embedder: none\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e = open()
	defer e.Close()
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}
	if got := paths(engine.Query{Text: "kubernetes"}); len(got) != 0 {
		t.Errorf("sources taken out of the config are still searched: %v", got)
	}
}
