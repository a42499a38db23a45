package index

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/git"
	"github.com/quire-app/quire/sidecar/internal/embedtest"
	"github.com/quire-app/quire/sidecar/source"
	"github.com/quire-app/quire/sidecar/state"
	"github.com/quire-app/quire/sidecar/vault"
)

// gitRepo is a real repository made in the test.
type gitRepo struct {
	t   *testing.T
	dir string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &gitRepo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir, "-c", "user.email=t@example.org", "-c", "user.name=t", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *gitRepo) write(rel, body string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *gitRepo) commit(msg string) string {
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

// digest hashes every file under dir with its mode and size: a read that
// wrote anything (an index refresh, a lock, a fetch) changes it.
func digest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v %d %d\n", p, info.Mode(), info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func openSourceIndex(t *testing.T) (*Index, *embedtest.Bag) {
	t.Helper()
	vaultDir := t.TempDir()
	st, err := state.Open(filepath.Join(vaultDir, ".quire"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(vaultDir, st, config.Default())
	if err != nil {
		t.Fatal(err)
	}
	emb := fakeEmbedder("bag")
	if _, err := ix.EnableDense(st, emb); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close(); st.Close() })
	return ix, emb
}

// snapshot is what an index holds of one source: each note's catalog
// entry (its file time aside, which a git note does not have), each
// passage, and which passages have vectors.
func snapshot(t *testing.T, ix *Index, id string) string {
	t.Helper()
	var lines []string
	entries, _ := ix.cat.entriesOf(id)
	var ids []string
	for k, e := range entries {
		e.ModTime = 0
		lines = append(lines, fmt.Sprintf("note %s %+v", k, e))
		for i := 0; i < e.Chunks; i++ {
			ids = append(ids, fmt.Sprintf("%s#%d", k, i))
		}
	}
	docs, err := ix.BM25.Docs(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, pid := range ids {
		d := docs[pid]
		lines = append(lines, fmt.Sprintf("passage %s %q %q %q %d-%d vector=%v", pid, d.Title, d.Headings, d.Text, d.Start, d.End, ix.dense.store.Has(pid+"@0")))
	}
	all, err := ix.BM25.Paths()
	if err != nil {
		t.Fatal(err)
	}
	for p, n := range all {
		if sid, _ := source.Split(p); sid == id && entries[p].Chunks != n {
			lines = append(lines, fmt.Sprintf("stray passages of %s: %d", p, n))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func syncSource(t *testing.T, ix *Index, src source.Source, repo *git.Repo) SourceStats {
	t.Helper()
	rev, err := repo.Head(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	st, err := ix.SyncGit(context.Background(), src, repo, rev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Embed(context.Background()); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestGitSourceFollowsHistory is the must-show test of git sources: a
// clone read in place through commits, a rename, a delete, a submodule
// and a force-push (history rewritten, the indexed revision gone). After
// each change the index equals a fresh index of that revision; an
// unchanged revision reads and embeds nothing; a rename moves vectors
// instead of embedding; the clone is never written.
func TestGitSourceFollowsHistory(t *testing.T) {
	ctx := context.Background()
	sub := newGitRepo(t)
	sub.write("inner.md", "# Inner\n\nA note of another repository.\n")
	sub.commit("sub")

	r := newGitRepo(t)
	r.write("runbooks/deploy.md", "# Deploy\n\nRoll the nginx pods one by one; watch the error rate.\n\n## Rollback\n\nHelm rollback to the last release.\n")
	r.write("runbooks/backup.md", "# Backup\n\nRestic snapshots every night at 02:00 to the NAS.\n")
	r.write("travel/prague.md", "---\ntitle: Prague\ntags: [travel]\n---\nTrams run all night; buy a 72-hour pass.\n")
	r.write("drafts/wip.md", "# Work in progress\n\nNot yet.\n")
	r.write("README.txt", "not a note\n")
	r.git("submodule", "add", "-q", sub.dir, "vendor/inner")
	r.commit("first")

	src := source.Source{ID: "ops", Kind: source.KindGit, Root: r.dir, Exclude: []string{"drafts/**"}}
	repo, err := git.Open(ctx, r.dir)
	if err != nil {
		t.Fatal(err)
	}
	ix, emb := openSourceIndex(t)
	clone := digest(t, r.dir)

	check := func(step string, want SourceStats) SourceStats {
		t.Helper()
		got := syncSource(t, ix, src, repo)
		fresh, _ := openSourceIndex(t)
		syncSource(t, fresh, src, repo)
		if a, b := snapshot(t, ix, "ops"), snapshot(t, fresh, "ops"); a != b {
			t.Fatalf("%s: the index differs from a fresh index of the revision:\n--- incremental\n%s\n--- fresh\n%s", step, a, b)
		}
		if got.Read != want.Read || got.Removed != want.Removed || got.Moved != want.Moved || got.Full != want.Full {
			t.Errorf("%s: read %d removed %d moved %d full %v; want read %d removed %d moved %d full %v",
				step, got.Read, got.Removed, got.Moved, got.Full, want.Read, want.Removed, want.Moved, want.Full)
		}
		// The same revision again costs nothing.
		before := emb.Texts.Load()
		again := syncSource(t, ix, src, repo)
		if again.Read != 0 || again.Removed != 0 || emb.Texts.Load() != before {
			t.Errorf("%s: an unchanged revision read %d notes and embedded %d texts", step, again.Read, emb.Texts.Load()-before)
		}
		if d := digest(t, r.dir); d != clone {
			t.Fatalf("%s: syncing wrote into the clone", step)
		}
		return got
	}

	st := check("first commit", SourceStats{Read: 3, Full: true})
	if !slices.ContainsFunc(st.Skipped, func(s vault.Skip) bool {
		return s.Path == "ops:vendor/inner" && strings.Contains(s.Reason, "submodule")
	}) {
		t.Errorf("the submodule is not reported: %v", st.Skipped)
	}
	if _, ok, _ := ix.cat.get("ops:runbooks/deploy.md"); !ok {
		t.Fatal("ops:runbooks/deploy.md not indexed")
	}

	r.write("runbooks/deploy.md", "# Deploy\n\nRoll the nginx pods two at a time; watch the error rate.\n\n## Rollback\n\nHelm rollback to the last release.\n")
	r.commit("edit")
	clone = digest(t, r.dir)
	check("an edit", SourceStats{Read: 1})

	r.git("mv", "runbooks/backup.md", "runbooks/backups.md")
	r.commit("rename")
	clone = digest(t, r.dir)
	before := emb.Texts.Load()
	check("a rename", SourceStats{Read: 1, Removed: 1, Moved: 1})
	if n := emb.Texts.Load() - before; n != 0 {
		t.Errorf("a rename embedded %d texts; its vectors should move", n)
	}

	r.git("rm", "-q", "travel/prague.md")
	deleted := r.commit("delete")
	clone = digest(t, r.dir)
	check("a delete", SourceStats{Removed: 1})

	// A force-push: history rewritten from before the delete (Prague is
	// back), the indexed revision unreachable and pruned, so the revision
	// is compared whole.
	r.git("reset", "-q", "--hard", "HEAD~1")
	r.write("travel/brno.md", "# Brno\n\nThe Špilberk castle overlooks the city.\n")
	r.commit("rewritten")
	r.git("reflog", "expire", "--expire=now", "--all")
	r.git("gc", "-q", "--prune=now")
	if repo.Has(ctx, deleted) {
		t.Fatal("the rewritten commit is still there")
	}
	clone = digest(t, r.dir)
	check("a force-push", SourceStats{Read: 2, Full: true})
}

// TestFolderSource reads a folder source's matched notes, follows an edit
// and a delete, leaves its notes when the folder goes missing, and drops
// them all when the source is taken out.
func TestFolderSource(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("work/plan.md", "# Plan\n\nShip the beta in March.\n")
	write("work/drafts/idea.md", "# Idea\n\nNot yet.\n")
	write("work/notes.txt", "not a note\n")
	write("other/x.md", "# Other\n\nOutside the paths.\n")
	src := source.Source{ID: "work", Kind: source.KindFolder, Root: root, Paths: []string{"work/**"}, Exclude: []string{"drafts/**"}}
	ix, _ := openSourceIndex(t)
	keys := func() []string {
		var out []string
		work, _ := ix.cat.entriesOf("work")
		for k := range work {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	if _, err := ix.SyncFolder(ctx, src); err != nil {
		t.Fatal(err)
	}
	if got := keys(); !slices.Equal(got, []string{"work:work/plan.md"}) {
		t.Fatalf("notes = %v", got)
	}
	if st, err := ix.SyncFolder(ctx, src); err != nil || st.Read != 0 {
		t.Fatalf("an unchanged folder read %d notes (%v)", st.Read, err)
	}
	write("work/todo.md", "# Todo\n\nCall the printer.\n")
	if err := os.Remove(filepath.Join(root, "work/plan.md")); err != nil {
		t.Fatal(err)
	}
	if st, err := ix.SyncFolder(ctx, src); err != nil || st.Read != 1 || st.Removed != 1 {
		t.Fatalf("sync: %+v %v", st, err)
	}
	if got := keys(); !slices.Equal(got, []string{"work:work/todo.md"}) {
		t.Fatalf("notes = %v", got)
	}
	gone := src
	gone.Root = filepath.Join(root, "missing")
	if _, err := ix.SyncFolder(ctx, gone); err == nil || len(keys()) != 1 {
		t.Fatalf("a missing folder: err %v, notes %v", err, keys())
	}
	if n, err := ix.DropSource(ctx, "work"); err != nil || n != 1 || len(keys()) != 0 {
		t.Fatalf("DropSource: %d %v, notes %v", n, err, keys())
	}
	if c, _ := ix.BM25.Count(); c != 0 {
		t.Errorf("%d passages left after the source was dropped", c)
	}
}

// TestGitSyncInterrupted stops a sync after part of its notes are
// written: the revision indexed does not advance, and the next sync
// leaves the index equal to a fresh index of the revision.
func TestGitSyncInterrupted(t *testing.T) {
	r := newGitRepo(t)
	for i := 0; i < 500; i++ {
		r.write(fmt.Sprintf("n/%03d.md", i), fmt.Sprintf("# Note %d\n\nText of note number %d about git sources.\n", i, i))
	}
	r.commit("many")
	src := source.Source{ID: "ops", Kind: source.KindGit, Root: r.dir}
	repo, err := git.Open(context.Background(), r.dir)
	if err != nil {
		t.Fatal(err)
	}
	rev, _ := repo.Head(context.Background(), "")
	ix, _ := openSourceIndex(t)
	ctx, cancel := context.WithCancel(context.Background())
	ix.OnProgress = func(p Progress) {
		if p.Done >= 300 {
			cancel()
		}
	}
	if _, err := ix.SyncGit(ctx, src, repo, rev); err == nil {
		t.Fatal("the interrupted sync succeeded")
	}
	ix.OnProgress = nil
	if ops, _ := ix.cat.entriesOf("ops"); len(ops) == 0 || len(ops) == 500 {
		t.Fatalf("%d notes written before the interruption; the test wants part of them", len(ops))
	}
	if st, _ := ix.SourceState("ops"); st.Revision != "" {
		t.Fatalf("the revision advanced to %s before its notes were all written", st.Revision)
	}
	syncSource(t, ix, src, repo)
	fresh, _ := openSourceIndex(t)
	syncSource(t, fresh, src, repo)
	if a, b := snapshot(t, ix, "ops"), snapshot(t, fresh, "ops"); a != b {
		t.Fatal("after an interrupted sync and another, the index differs from a fresh one")
	}
}
