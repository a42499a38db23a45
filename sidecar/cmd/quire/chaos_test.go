package main

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/internal/vaultgen"
)

// TestChaos kills `quire serve` with SIGKILL at random moments while it
// indexes, embeds, runs an ingest and syncs a git source whose branch
// moves on (commits that add, change, rename and delete notes), restarts
// it each time, and checks that nothing was lost: once it settles, its
// note, passage and vector counts, the git source's revision, notes and
// passages, and its search results equal those of a fresh index of the
// same vault and repository, every ingested source has exactly one note,
// and no temporary file is left. QUIRE_CHAOS_KILLS sets the kills per phase (default 1,
// the short variant the test command runs) and QUIRE_CHAOS_NOTES the
// vault's size (default 60); scripts/chaos runs more of both.
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a sidecar")
	}
	kills := envInt("QUIRE_CHAOS_KILLS", 1)
	seed := time.Now().UnixNano()
	if s := os.Getenv("QUIRE_CHAOS_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d, %d kills per phase", seed, kills)

	v := t.TempDir()
	if _, err := vaultgen.Write(v, vaultgen.Options{Notes: envInt("QUIRE_CHAOS_NOTES", 60), Seed: 11}); err != nil {
		t.Fatal(err)
	}
	// A git source beside the vault: a clone read in place.
	repo := t.TempDir()
	repoNotes, err := vaultgen.Write(repo, vaultgen.Options{Notes: envInt("QUIRE_CHAOS_NOTES", 60) / 2, Seed: 23})
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "init", "-q", "-b", "main")
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "notes")
	withSource := func(state string) {
		t.Helper()
		os.MkdirAll(state, 0o700)
		if err := os.WriteFile(filepath.Join(state, "config.yaml"), []byte("sources:\n  git:\n    ops:\n      path: "+repo+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := t.TempDir()
	withSource(st)
	total := 0
	kill := func(phase string, c *child, after time.Duration) {
		time.Sleep(after) // a random moment, not a wait for a condition
		if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-c.exited
		c.exited <- nil
		total++
		t.Logf("kill %d (%s) after %s", total, phase, after.Round(time.Millisecond))
	}
	serve := func() *child { return startQuire(t, "serve", "--vault", v, "--state", st, "--port", "0") }

	// Indexing: a fresh state folder each round, killed during the first
	// pass; the next start must finish it.
	for i := 0; i < kills; i++ {
		os.RemoveAll(st)
		withSource(st)
		c := serve()
		attachTo(t, c, st)
		kill("indexing", c, time.Duration(rng.Intn(400))*time.Millisecond)
	}
	// Embedding: the index is whole, the vectors are being made.
	for i := 0; i < kills; i++ {
		c := serve()
		cl, _ := attachTo(t, c, st)
		waitIdle(t, cl, 5*time.Minute)
		kill("embedding", c, time.Duration(rng.Intn(1500))*time.Millisecond)
	}
	// Ingest: sources queued on the sidecar, killed while it works them.
	srcDir := t.TempDir()
	var sources []string
	for i := 0; i < kills+2; i++ {
		p := filepath.Join(srcDir, fmt.Sprintf("clip-%d.txt", i))
		os.WriteFile(p, []byte(fmt.Sprintf("Clip %d. Cover crop number %d keeps the soil of field %d in place over winter.\n", i, i, i)), 0o644)
		sources = append(sources, p)
	}
	for i := 0; i < kills; i++ {
		c := serve()
		cl, _ := attachTo(t, c, st)
		for _, src := range sources {
			// A source added again while queued is followed, not refused;
			// one already done is refused as a duplicate, which is fine.
			_ = cl.Call(context.Background(), proto.TypeIngestAdd, proto.IngestAdd{Source: src}, &proto.IngestResult{})
		}
		kill("ingest", c, time.Duration(rng.Intn(300))*time.Millisecond)
	}

	// Git: the branch moves on while the sidecar is down; killed while
	// it syncs the commit (the revision must not advance before the
	// batch is durable).
	for i := 0; i < kills; i++ {
		repoNotes = advance(t, rng, repo, repoNotes, i)
		c := serve()
		attachTo(t, c, st)
		kill("git sync", c, time.Duration(rng.Intn(600))*time.Millisecond)
	}

	// Settle: restart and wait until the index, the vectors and the queue
	// are done.
	c := serve()
	cl, _ := attachTo(t, c, st)
	got := settle(t, cl)
	var queue proto.QueueResult
	if err := cl.Call(context.Background(), proto.TypeQueueList, proto.QueueList{}, &queue); err != nil {
		t.Fatal(err)
	}
	for _, it := range queue.Items {
		if it.State != "done" {
			t.Errorf("queue item %d (%s) is %s: %s", it.ID, it.Source, it.State, it.Error)
		}
	}

	// A fresh index of the same notes, in a state folder of its own: of a
	// copy of the vault, since one engine at a time works a vault.
	copied := t.TempDir()
	if out, err := exec.Command("cp", "-R", v+"/.", copied).CombinedOutput(); err != nil {
		t.Fatalf("copy the vault: %v: %s", err, out)
	}
	fresh := t.TempDir()
	withSource(fresh)
	fc := startQuire(t, "serve", "--vault", copied, "--state", fresh, "--port", "0")
	fcl, _ := attachTo(t, fc, fresh)
	want := settle(t, fcl)
	if got.Notes != want.Notes || got.Chunks != want.Chunks {
		t.Errorf("after %d kills: %d notes, %d passages; a fresh index: %d notes, %d passages", total, got.Notes, got.Chunks, want.Notes, want.Chunks)
	}
	if got.Coverage != want.Coverage {
		t.Errorf("after %d kills: vectors %+v; a fresh index: %+v", total, got.Coverage, want.Coverage)
	}
	head := strings.TrimSpace(gitOut(t, repo, "rev-parse", "HEAD"))
	gotOps, wantOps := opsSource(t, cl), opsSource(t, fcl)
	if gotOps.Revision != head || gotOps.Error != "" {
		t.Errorf("after %d kills the git source is at %s (error %q), the branch at %s", total, gotOps.Revision, gotOps.Error, head)
	}
	if gotOps.Notes != wantOps.Notes || gotOps.Passages != wantOps.Passages || gotOps.Notes != len(repoNotes) {
		t.Errorf("after %d kills the git source holds %d notes, %d passages; a fresh index %d, %d; the branch has %d notes",
			total, gotOps.Notes, gotOps.Passages, wantOps.Notes, wantOps.Passages, len(repoNotes))
	}
	for _, q := range []string{"cover crop", "soil winter", "meeting notes", "health", "travel", "recipe", "changed again"} {
		for _, ch := range []proto.Channel{proto.ChannelBM25, proto.ChannelHybrid} {
			// The same passages match; scores may differ a little (the
			// keyword index keeps statistics of replaced documents until
			// it merges), so ties and the cut at k are not compared.
			a, b := paths(t, cl, q, ch), paths(t, fcl, q, ch)
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Errorf("search %q (%s) after the kills: %v; fresh: %v", q, ch, a, b)
			}
		}
	}
	// Each source has one note, and no half-written file is left.
	notes := map[string]int{}
	filepath.WalkDir(filepath.Join(v, "Quire"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".quire-tmp-") {
			t.Errorf("temporary file left: %s", p)
		}
		if strings.Contains(p, string(filepath.Separator)+"Sources"+string(filepath.Separator)) {
			b, _ := os.ReadFile(p)
			for _, src := range sources {
				if strings.Contains(string(b), "source: "+src+"\n") {
					notes[src]++
				}
			}
		}
		return nil
	})
	for _, src := range sources {
		if notes[src] != 1 {
			t.Errorf("%s has %d source notes, want 1", src, notes[src])
		}
	}
	if t.Failed() {
		return // the differences are reported above
	}
	t.Logf("%d kills: %d notes, %d passages, %d/%d vectors, %d ingested sources, all equal to a fresh index", total, got.Notes, got.Chunks, got.Coverage.VectorsDone, got.Coverage.VectorsTotal, len(sources))
}

// settle waits until the sidecar has indexed, embedded every passage and
// worked its queue.
func settle(t *testing.T, cl *client.Client) proto.StatusResult {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		st, err := cl.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var q proto.QueueResult
		if err := cl.Call(context.Background(), proto.TypeQueueList, proto.QueueList{}, &q); err != nil {
			t.Fatal(err)
		}
		busy := false
		for _, it := range q.Items {
			busy = busy || it.State == "queued" || it.State == "running"
		}
		if !st.Indexing && !st.LastIndexed.IsZero() && !busy && st.Coverage.VectorsDone == st.Coverage.VectorsTotal {
			// One more look: an ingest's note may start a pass.
			again, _ := cl.Status(context.Background())
			if !again.Indexing && again.Notes == st.Notes && again.Chunks == st.Chunks {
				return again
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not settled after 10 minutes: %+v", st)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func paths(t *testing.T, cl *client.Client, q string, ch proto.Channel) []string {
	t.Helper()
	res, err := cl.Search(context.Background(), proto.SearchQuery{Query: q, K: 1000, Channel: ch})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range res.Passages {
		out = append(out, fmt.Sprintf("%s:%s#%d-%d", p.Source, p.Path, p.Start, p.End))
	}
	return out
}

// advance commits a change to the repository's branch: a note changed,
// one renamed, one deleted and one added (round n), and returns the
// notes it then holds.
func advance(t *testing.T, rng *rand.Rand, repo string, notes []string, n int) []string {
	t.Helper()
	notes = slices.Clone(notes)
	pick := func() int { return rng.Intn(len(notes)) }
	i := pick()
	f, err := os.OpenFile(filepath.Join(repo, notes[i]), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n## Changed again %d\n\nA paragraph added in round %d.\n", n, n)
	f.Close()
	i = pick()
	renamed := strings.TrimSuffix(notes[i], ".md") + fmt.Sprintf(" moved %d.md", n)
	gitIn(t, repo, "mv", notes[i], renamed)
	notes[i] = renamed
	i = pick()
	gitIn(t, repo, "rm", "-q", "-f", notes[i]) // -f: it may be the note just changed or renamed
	notes = slices.Delete(notes, i, i+1)
	added := fmt.Sprintf("Added/round %d.md", n)
	os.MkdirAll(filepath.Join(repo, "Added"), 0o755)
	os.WriteFile(filepath.Join(repo, added), []byte(fmt.Sprintf("# Round %d\n\nA note added in round %d, changed again never.\n", n, n)), 0o644)
	notes = append(notes, added)
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", fmt.Sprintf("round %d", n))
	return notes
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	gitOut(t, dir, args...)
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@example.org", "-c", "user.name=t"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// opsSource is the git source ops as the sidecar lists it.
func opsSource(t *testing.T, cl *client.Client) proto.SourceInfo {
	t.Helper()
	var res proto.SourcesResult
	if err := cl.Call(context.Background(), proto.TypeSourcesList, proto.SourcesList{}, &res); err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Sources {
		if s.ID == "ops" {
			return s
		}
	}
	t.Fatalf("no source ops in %+v", res.Sources)
	return proto.SourceInfo{}
}
