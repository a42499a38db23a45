package compile

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

// fake scripts the model: a reply per task, computed from what it was sent.
type fake struct {
	read  func(user string) notes // one chunk's notes
	merge func(user string) notes // nil: the first set's notes, as sent
	plan  func(user string) plan
	// summarise answers a concept page's summary (consolidate.go); nil
	// refuses the task.
	summarise func(user string) string
}

// newModel starts the fake server and returns a client for it with the
// given context window.
func newModel(t testing.TB, f fake, window int) (*llm.Client, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(t)
	srv.SetResponder(func(req llmtest.Request) llmtest.Reply {
		if len(req.Messages) < 2 {
			return llmtest.Reply{Status: 400, Error: "want system and user"}
		}
		sys, user := req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content
		var v any
		switch {
		case strings.HasPrefix(sys, taskRead):
			v = f.read(user)
		case strings.HasPrefix(sys, taskMerge):
			if f.merge != nil {
				v = f.merge(user)
			} else {
				v = notes{Points: []string{"merged"}}
			}
		case strings.HasPrefix(sys, taskPlan):
			v = f.plan(user)
		case strings.HasPrefix(sys, taskSummarise) && f.summarise != nil:
			v = map[string]string{"summary": f.summarise(user)}
		default:
			return llmtest.Reply{Status: 400, Error: "unknown task"}
		}
		b, _ := json.Marshal(v)
		return llmtest.Reply{Text: string(b)}
	})
	c, err := llm.New(llm.Config{Provider: llm.OpenAI, Endpoint: srv.URL, Model: "fake", Timeout: 10 * time.Second, ContextTokens: window})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

// tasks counts the requests the fake received, by task.
func tasks(srv *llmtest.Server) map[string]int {
	out := map[string]int{}
	for _, r := range srv.Requests() {
		sys := r.Messages[0].Content
		switch {
		case strings.HasPrefix(sys, taskRead):
			out["read"]++
		case strings.HasPrefix(sys, taskMerge):
			out["merge"]++
		case strings.HasPrefix(sys, taskPlan):
			out["plan"]++
		}
	}
	return out
}

// recorder collects the callbacks.
type recorder struct {
	mu       sync.Mutex
	written  []ingest.Written
	reviewed []ingest.Reviewed
	steps    []ingest.Step
}

func (r *recorder) options(o Options) Options {
	o.Written = func(n ingest.Written) { r.mu.Lock(); r.written = append(r.written, n); r.mu.Unlock() }
	o.Reviewed = func(n ingest.Reviewed) { r.mu.Lock(); r.reviewed = append(r.reviewed, n); r.mu.Unlock() }
	o.Progress = func(s ingest.Step, i, n int) { r.mu.Lock(); r.steps = append(r.steps, s); r.mu.Unlock() }
	return o
}

// related is a search that always finds the same pages, less those it is
// told to leave, and the Exists that knows them.
func related(pages ...Page) (Related, func(string) bool) {
	search := func(_ context.Context, q string, k int, leave Leave) ([]Page, error) {
		var out []Page
		for _, p := range pages {
			if !slices.Contains(leave.Notes, p.Path) && !slices.ContainsFunc(leave.Folders, func(f string) bool { return strings.HasPrefix(p.Path, f) }) {
				out = append(out, p)
			}
		}
		return out[:min(k, len(out))], nil
	}
	exists := func(t string) bool {
		for _, p := range pages {
			if t == p.Path || t == strings.TrimSuffix(p.Path, ".md") || t == p.Title {
				return true
			}
		}
		return false
	}
	return search, exists
}

var breadPage = Page{Path: "Notes/Bread baking.md", Title: "Bread baking", Headings: []string{"Bread baking", "Starters"},
	Snippet: "A starter is a culture of wild yeast and bacteria kept in flour and water.", Score: 3.2}

func source(doc *extract.Doc, origin string) Source {
	return Source{Doc: doc, Origin: origin, Raw: "Quire/raw/page.html", Hash: extract.TextHash(doc),
		Captured: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
}

func readFile(t testing.TB, vault, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vault, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshot reads every file under dir (relative to vault), by path.
func snapshot(t testing.TB, vault, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	root := filepath.Join(vault, dir)
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == OwnerFile {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(vault, p)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return out
}

// wholeNotes fails the test if any file under the folder is a temporary
// file or a generated note whose hash does not match its bytes.
func wholeNotes(t testing.TB, vault, dir string) {
	t.Helper()
	for p, body := range snapshot(t, vault, dir) {
		if strings.Contains(p, tempPrefix) {
			t.Errorf("temporary file left: %s", p)
			continue
		}
		if strings.HasSuffix(p, "log.md") {
			continue
		}
		if _, ok := ours([]byte(body)); !ok {
			t.Errorf("%s is not a whole generated note:\n%s", p, body)
		}
	}
}

func dropped(ds []ingest.Dropped, what string) int {
	for _, d := range ds {
		if d.What == what {
			return d.Count
		}
	}
	return 0
}
