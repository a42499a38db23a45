package server

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/fetch"
)

// testSite serves pages as http://site.example/… through a fake resolver
// (a public address) and dialer (to the local listener): the guard is the
// real one.
type testSite struct {
	srv *httptest.Server
}

func (ts *testSite) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	if host != "site.example" {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []net.IPAddr{{IP: net.ParseIP("93.184.216.34")}}, nil
}

func (ts *testSite) dial(ctx context.Context, network, _ string) (net.Conn, error) {
	return (&net.Dialer{}).DialContext(ctx, network, ts.srv.Listener.Addr().String())
}

const sitePage = `<!doctype html><html lang="en"><head><title>Sourdough Hydration</title></head><body>
<article><h1>Sourdough Hydration</h1>
<p>Hydration is the weight of water divided by the weight of flour. A starter kept at full hydration holds equal weights of flour and water, and a wetter dough gives a more open crumb.</p>
<p>Bakers raise hydration slowly, a few percent at a time, because a slack dough is harder to shape.</p>
</article></body></html>`

// withIngest gives the server a queue, a fetch client reaching a local
// test site, and an inbox looked at every 20 ms, and works the queue.
func withIngest(t *testing.T) func(*setup) {
	site := &testSite{srv: httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/hydration":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(sitePage))
		case "/to-private":
			http.Redirect(w, r, "http://192.168.1.1/", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))}
	t.Cleanup(site.srv.Close)
	q, err := ingest.OpenQueue(filepath.Join(t.TempDir(), "queue"))
	if err != nil {
		t.Fatal(err)
	}
	return func(o *setup) {
		o.Queue = q
		o.Fetch = fetch.New(fetch.Options{Dialer: site.dial, Resolver: site, Timeout: 10 * time.Second})
		o.InboxPoll = 20 * time.Millisecond
	}
}

// startIngest serves the test vault with ingest on; the worker stops, and
// the queue closes, when the test ends.
func startIngest(t *testing.T) *harness {
	h := start(t, notes, withIngest(t))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.eng.RunIngest(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ingest: %v", err)
		}
		h.setup.Queue.Close()
	})
	return h
}

// untilFinished collects events until item id is done or failed.
func untilFinished(t *testing.T, c *client.Client, id uint64) (progress []proto.IngestProgress, written []proto.NoteWritten, last proto.Envelope) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case env, ok := <-c.Events():
			if !ok {
				t.Fatalf("connection ended: %v", c.Err())
			}
			switch env.Type {
			case proto.TypeIngestProgress:
				var p proto.IngestProgress
				env.Decode(&p)
				if p.ID == id {
					progress = append(progress, p)
				}
			case proto.TypeNoteWritten:
				var n proto.NoteWritten
				env.Decode(&n)
				written = append(written, n)
			case proto.TypeIngestDone:
				var d proto.IngestDone
				env.Decode(&d)
				if d.ID == id {
					return progress, written, env
				}
			case proto.TypeIngestFailed:
				var f proto.IngestFailed
				env.Decode(&f)
				if f.ID == id {
					return progress, written, env
				}
			}
		case <-timeout:
			t.Fatalf("item %d did not finish in 20 s", id)
		}
	}
}

func TestIngestOverWebsocket(t *testing.T) {
	h := startIngest(t)
	c := h.dial()
	ctx := context.Background()
	var res proto.IngestResult
	if err := c.Call(ctx, proto.TypeIngestAdd, proto.IngestAdd{Source: "http://site.example/hydration"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.ID == 0 || res.Source != "http://site.example/hydration" || res.Position != 0 {
		t.Errorf("ingest.result %+v", res)
	}
	progress, written, last := untilFinished(t, c, res.ID)
	if last.Type != proto.TypeIngestDone {
		t.Fatalf("got %s %s, want ingest.done", last.Type, last.Payload)
	}
	var d proto.IngestDone
	last.Decode(&d)
	if d.Note != "Quire/Sources/Sourdough Hydration.md" || d.Summarised {
		t.Errorf("ingest.done %+v; want the unsummarised source note (no model)", d)
	}
	var steps []string
	for _, p := range progress {
		steps = append(steps, string(p.Step))
	}
	for _, s := range []proto.IngestStep{proto.StepFetching, proto.StepExtracting, proto.StepWriting} {
		if !strings.Contains(strings.Join(steps, ","), string(s)) {
			t.Errorf("progress steps %v lack %s", steps, s)
		}
	}
	if len(written) == 0 || written[0].Path != d.Note {
		t.Errorf("note.written events %+v", written)
	}
	note, err := os.ReadFile(filepath.Join(h.vault, filepath.FromSlash(d.Note)))
	if err != nil || !strings.Contains(string(note), "full hydration") {
		t.Errorf("note: %v\n%s", err, note)
	}
	// Related pages come from the server's index: the sourdough note.
	if !strings.Contains(string(note), "Kitchen/Sourdough") {
		t.Errorf("the note does not connect to Kitchen/Sourdough.md:\n%s", note)
	}

	var list proto.QueueResult
	if err := c.Call(ctx, proto.TypeQueueList, proto.QueueList{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].State != "done" || list.Items[0].Note != d.Note || list.Items[0].Added == "" {
		t.Errorf("queue.result %+v", list)
	}

	// The same page again, with a tracking parameter: refused at once.
	err = c.Call(ctx, proto.TypeIngestAdd, proto.IngestAdd{Source: "http://site.example/hydration?utm_source=newsletter"}, &res)
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CodeDuplicate || !strings.Contains(pe.Message, d.Note) {
		t.Errorf("duplicate ingest.add: %v, want %s naming %s", err, proto.CodeDuplicate, d.Note)
	}
}

func TestIngestAddRefuses(t *testing.T) {
	h := startIngest(t)
	c := h.dial()
	for _, tt := range []struct {
		source string
		code   proto.ErrorCode
	}{
		{"", proto.CodeInvalidRequest},
		{"ftp://site.example/x", proto.CodeInvalidRequest},
		{"relative/file.pdf", proto.CodeInvalidRequest},
		{filepath.Join(h.vault, "missing.pdf"), proto.CodeInvalidRequest},
		{"http://site.example/hydration", proto.CodeModelUnavailable}, // resummarise without a model
	} {
		var res proto.IngestResult
		err := c.Call(context.Background(), proto.TypeIngestAdd, proto.IngestAdd{Source: tt.source, Resummarise: tt.code == proto.CodeModelUnavailable}, &res)
		var pe *proto.Error
		if !errors.As(err, &pe) || pe.Code != tt.code {
			t.Errorf("ingest.add %q: %v, want %s", tt.source, err, tt.code)
		}
	}
}

func TestIngestFailedEvent(t *testing.T) {
	h := startIngest(t)
	c := h.dial()
	var res proto.IngestResult
	if err := c.Call(context.Background(), proto.TypeIngestAdd, proto.IngestAdd{Source: "http://site.example/to-private"}, &res); err != nil {
		t.Fatal(err)
	}
	_, _, last := untilFinished(t, c, res.ID)
	var f proto.IngestFailed
	if last.Type != proto.TypeIngestFailed || last.Decode(&f) != nil || f.Code != proto.FailBlocked || !strings.Contains(f.Message, "192.168.1.1 is a private address") {
		t.Errorf("got %s %s, want ingest.failed blocked", last.Type, last.Payload)
	}
}

func TestIngestInbox(t *testing.T) {
	h := startIngest(t)
	c := h.dial()
	h.write("Quire/Inbox/clip.md", "---\ntitle: Rye starter\n---\nA rye starter ferments faster than a wheat one.\n")
	timeout := time.After(20 * time.Second)
	for {
		select {
		case env := <-c.Events():
			if env.Type == proto.TypeIngestFailed {
				t.Fatalf("failed: %s", env.Payload)
			}
			if env.Type != proto.TypeIngestDone {
				continue
			}
			if _, err := os.Stat(filepath.Join(h.vault, "Quire", "Inbox", "done", "clip.md")); err != nil {
				t.Errorf("dropped file not moved to Inbox/done: %v", err)
			}
			return
		case <-timeout:
			t.Fatal("the dropped file was not ingested in 20 s")
		}
	}
}

func TestIngestWithoutQueue(t *testing.T) {
	h := start(t, notes)
	c := h.dial()
	var res proto.IngestResult
	err := c.Call(context.Background(), proto.TypeIngestAdd, proto.IngestAdd{Source: "http://site.example/x"}, &res)
	var pe *proto.Error
	if !errors.As(err, &pe) || pe.Code != proto.CodeNotReady {
		t.Errorf("ingest.add without a queue: %v, want not_ready", err)
	}
	var list proto.QueueResult
	if err := c.Call(context.Background(), proto.TypeQueueList, proto.QueueList{}, &list); err != nil || list.Items == nil {
		t.Errorf("queue.list without a queue: %+v, %v", list, err)
	}
}

// TestLintOverWebsocket: lint.run checks the notes the sidecar wrote (here
// a source whose original was deleted), writes Quire/Lint.md and a review
// item, pushes review.created for it; a dry run writes nothing.
func TestLintOverWebsocket(t *testing.T) {
	h := startIngest(t)
	c := h.dial()
	ctx := context.Background()
	var res proto.IngestResult
	if err := c.Call(ctx, proto.TypeIngestAdd, proto.IngestAdd{Source: "http://site.example/hydration"}, &res); err != nil {
		t.Fatal(err)
	}
	if _, _, last := untilFinished(t, c, res.ID); last.Type != proto.TypeIngestDone {
		t.Fatalf("got %s %s, want ingest.done", last.Type, last.Payload)
	}
	raws, _ := filepath.Glob(filepath.Join(h.vault, "Quire", "raw", "*"))
	if len(raws) != 1 {
		t.Fatalf("originals: %v", raws)
	}
	os.Remove(raws[0])

	r := client.NewRemote(c, os.Getpid())
	dry, err := r.Lint(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Defects) != 1 || dry.Defects[0].Check != "missing-raw" || dry.Report != "" || len(dry.Review) != 0 {
		t.Fatalf("dry run: %+v", dry)
	}
	if _, err := os.Stat(filepath.Join(h.vault, "Quire", "Lint.md")); err == nil {
		t.Fatal("the dry run wrote Lint.md")
	}
	got, err := r.Lint(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	d := got.Defects[0]
	if len(got.Defects) != 1 || d.Note != "Quire/Sources/Sourdough Hydration.md" || !strings.Contains(d.Detail, "missing") ||
		got.Report != "Quire/Lint.md" || len(got.Review) != 1 || d.Review != got.Review[0] {
		t.Fatalf("lint: %+v", got)
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case env := <-c.Events():
			var rc proto.ReviewCreated
			if env.Type != proto.TypeReviewCreated || env.Decode(&rc) != nil || rc.Path != d.Review {
				continue
			}
			if rc.About != d.Note {
				t.Errorf("review.created %+v", rc)
			}
			return
		case <-timeout:
			t.Fatal("no review.created for the lint's review item")
		}
	}
}
