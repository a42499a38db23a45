package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

// cropFake is a model that reads the clips of TestReingestKilled: its plan
// names the concepts of layout 1 or, once bumped, of the new layout, and
// each reply takes delay.
type cropFake struct {
	bumped atomic.Bool
	delay  atomic.Int64
}

var planTitle = regexp.MustCompile(`(?m)^title: (.*)$`)

func (f *cropFake) reply(r llmtest.Request) llmtest.Reply {
	if len(r.Messages) < 2 {
		return llmtest.Reply{Status: 400, Error: "want system and user"}
	}
	sys, user := r.Messages[0].Content, r.Messages[len(r.Messages)-1].Content
	var v any
	switch {
	case strings.HasPrefix(sys, "Task: take notes"), strings.HasPrefix(sys, "Task: merge"):
		v = map[string]any{"points": []string{"A cover crop protects the soil."}}
	case strings.HasPrefix(sys, "Task: plan"):
		title := ""
		if m := planTitle.FindStringSubmatch(user); m != nil {
			title = m[1]
		}
		var n int
		fmt.Sscanf(title, "Field %d", &n)
		concepts := []map[string]string{{"name": "cover crop", "description": "Layout one: rye over winter."},
			{"name": "green manure", "description": "Layout one: feeds the field."}}
		if f.bumped.Load() {
			concepts = []map[string]string{{"name": "cover crop", "description": "Layout two: rye keeps the soil."}}
			if n%2 == 0 {
				concepts = append(concepts, map[string]string{"name": "mulch", "description": "Layout two: keeps it moist."})
			}
		}
		v = map[string]any{"title": title, "oneLiner": "Notes on a field.", "summary": "A cover crop protects the soil.",
			"keyIdeas": []string{"Rye protects soil."}, "concepts": concepts}
	default:
		return llmtest.Reply{Status: 400, Error: "unknown task"}
	}
	b, _ := json.Marshal(v)
	return llmtest.Reply{Text: string(b), Delay: time.Duration(f.delay.Load())}
}

// downgrade rewrites a source note as a release of the previous layout
// wrote it: quire_format one lower, sealed again as Quire seals.
func downgrade(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	format := regexp.MustCompile(`(?m)^quire_format: \d+$`)
	if !format.Match(b) {
		t.Fatalf("%s has no quire_format", file)
	}
	b = format.ReplaceAll(b, []byte(fmt.Sprintf("quire_format: %d", compile.Format-1)))
	hash := regexp.MustCompile(`(?m)^quire_hash: ?"?([0-9a-f]*)"?$`)
	sum := sha256.Sum256(hash.ReplaceAll(b, []byte(`quire_hash: ""`)))
	b = hash.ReplaceAll(b, []byte("quire_hash: "+hex.EncodeToString(sum[:])))
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReingestKilled is the layout bump end to end: 20 sources ingested
// with a fake model, their notes set back one layout, 3 of them edited by
// the user; `quire reingest` killed with SIGKILL at a random point, then
// run again. Every note is rebuilt (same path, same title, the new layout,
// the new plan's concept sections and none of the old plan's) or, when
// edited, left byte for byte with its new version in review; every link
// of the generated notes resolves; a third run has nothing to do.
func TestReingestKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a quire reingest")
	}
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d", seed)
	fake := &cropFake{}
	srv := llmtest.New(t)
	srv.SetResponder(fake.reply)
	v := t.TempDir()
	os.MkdirAll(filepath.Join(v, ".quire"), 0o755)
	os.WriteFile(filepath.Join(v, ".quire", "config.yaml"), []byte("dense:\n  embedder: none\nmodel:\n  provider: ollama\n  endpoint: "+srv.URL+"\n  model: fake\n"), 0o644)
	os.WriteFile(filepath.Join(v, "Garden.md"), []byte("# Garden\n\nThe beds by the shed. See [[Quire/Sources/Field 03]].\n"), 0o644)

	clips := t.TempDir()
	args := []string{"ingest", "--vault", v}
	for i := 1; i <= 20; i++ {
		p := filepath.Join(clips, fmt.Sprintf("field-%02d.txt", i))
		os.WriteFile(p, []byte(fmt.Sprintf("Field %02d\n\nA cover crop such as rye protects the soil of field %d over winter. Green manure feeds it, and mulch keeps it moist.\n", i, i)), 0o644)
		args = append(args, p)
	}
	if out, err := runCLI(t, args...); err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	sources, _ := filepath.Glob(filepath.Join(v, "Quire", "Sources", "*.md"))
	if len(sources) != 20 {
		t.Fatalf("%d source notes, want 20", len(sources))
	}
	edited := map[string]string{}
	for i, s := range sources {
		downgrade(t, s)
		if i%7 == 3 { // 3 of the 20
			b, _ := os.ReadFile(s)
			b = append(b, "\nMy own note: sow the rye before October.\n"...)
			os.WriteFile(s, b, 0o644)
			edited[s] = string(b)
		}
	}
	if len(edited) != 3 {
		t.Fatalf("%d edited", len(edited))
	}

	out, err := runCLI(t, "reingest", "--vault", v, "--dry-run")
	if err != nil || strings.Count("\n"+out, "\nrebuild  ") != 17 || strings.Count("\n"+out, "\nreview  ") != 3 {
		t.Fatalf("dry run: %v, want 17 to rebuild and 3 to review:\n%s", err, out)
	}

	// The bump, and a reingest killed at a random point.
	fake.bumped.Store(true)
	fake.delay.Store(int64(30 * time.Millisecond))
	cmd := exec.Command(os.Args[0], "reingest", "--vault", v)
	cmd.Env = append(os.Environ(), "QUIRE_TEST_AS_QUIRE=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	after := 1 + rng.Intn(12)
	lines := bufio.NewScanner(stdout)
	seen := 0
	for seen < after && lines.Scan() {
		seen++
	}
	time.Sleep(time.Duration(rng.Intn(60)) * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	t.Logf("killed after %d notes (+ a random pause); stderr:\n%s", seen, stderr)
	if seen < after {
		t.Fatalf("reingest said only %d lines before it ended; stderr:\n%s", seen, stderr)
	}
	left, err := runCLI(t, "reingest", "--vault", v, "--dry-run")
	if err != nil || strings.Count("\n"+left, "\nrebuild  ") == 0 {
		t.Fatalf("nothing left to rebuild after the kill, so it did not land midway: %v\n%s", err, left)
	}

	// The rerun finishes the rest.
	if out, err := runCLI(t, "reingest", "--vault", v); err != nil {
		t.Fatalf("rerun: %v\n%s", err, out)
	}
	for _, s := range sources {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatalf("%s gone: %v", s, err)
		}
		name := strings.TrimSuffix(filepath.Base(s), ".md")
		if want, ok := edited[s]; ok {
			if string(b) != want {
				t.Errorf("edited %s was overwritten", name)
			}
			if _, err := os.Stat(filepath.Join(v, "Quire", "Review", name+" (new version).md")); err != nil {
				t.Errorf("edited %s has no new version in review: %v", name, err)
			}
			continue
		}
		note := string(b)
		if !strings.Contains(note, fmt.Sprintf("\nquire_format: %d\n", compile.Format)) || !strings.Contains(note, "\ntitle: "+name+"\n") {
			t.Errorf("%s not rebuilt with its title:\n%s", name, note)
		}
	}
	cover := readVault(t, v, "Quire/Concepts/cover crop.md")
	green := readVault(t, v, "Quire/Concepts/green manure.md")
	for _, s := range sources {
		name := strings.TrimSuffix(filepath.Base(s), ".md")
		from := "## From [[Quire/Sources/" + name + "|"
		if n := strings.Count(cover, from); n != 1 {
			t.Errorf("cover crop has %d sections from %s", n, name)
		}
		_, kept := edited[s]
		if strings.Contains(green, from) != kept {
			t.Errorf("green manure: section from %s present %v, want %v (only edited notes keep the old plan's)", name, !kept, kept)
		}
	}
	if n := strings.Count(cover, "Layout one"); n != 3 {
		t.Errorf("cover crop keeps %d sections of the old layout, want the 3 edited notes'", n)
	}
	brokenLinks(t, v)
	temps, _ := filepath.Glob(filepath.Join(v, "Quire", "*", ".quire-tmp-*"))
	if len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}

	calls := len(srv.Requests())
	out, err = runCLI(t, "reingest", "--vault", v)
	if err != nil || strings.Count(out, "review  ") != 3 || strings.Contains(out, "rebuilt  ") || len(srv.Requests()) != calls {
		t.Errorf("a third run: %v, %d model calls\n%s", err, len(srv.Requests())-calls, out)
	}
}

func readVault(t *testing.T, v, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(v, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// brokenLinks fails for every wikilink of the generated notes (sources,
// concept and entity pages, index.md) that names no file of the vault.
func brokenLinks(t *testing.T, v string) {
	t.Helper()
	link := regexp.MustCompile(`\[\[([^\]|#^]+)`)
	var files []string
	for _, g := range []string{"Quire/Sources/*.md", "Quire/Concepts/*.md", "Quire/Entities/*.md", "Quire/index.md"} {
		m, _ := filepath.Glob(filepath.Join(v, filepath.FromSlash(g)))
		files = append(files, m...)
	}
	checked := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := filepath.Join(v, filepath.FromSlash(m[1]))
			_, err1 := os.Stat(target)
			_, err2 := os.Stat(target + ".md")
			if err1 != nil && err2 != nil {
				t.Errorf("%s links to %q, which does not exist", filepath.Base(f), m[1])
			}
			checked++
		}
	}
	if checked < 60 {
		t.Errorf("only %d links checked", checked)
	}
}

// TestReingestWhileServed: with a sidecar serving the vault, reingest and
// bench say to close it, instead of naming a lock.
func TestReingestWhileServed(t *testing.T) {
	v := t.TempDir()
	os.WriteFile(filepath.Join(v, "Note.md"), []byte("# Note\n\nRye.\n"), 0o644)
	st := filepath.Join(v, ".quire")
	keywordsOnly(t, st)
	c := startQuire(t, "serve", "--vault", v, "--port", "0")
	attachTo(t, c, st)
	for _, cmd := range []string{"reingest", "bench"} {
		out, err := runCLI(t, cmd, "--vault", v)
		if err == nil || !strings.Contains(err.Error(), "close Obsidian") {
			t.Errorf("%s while served: %v\n%s", cmd, err, out)
		}
	}
}
