package worker

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/ingest/fetch"
)

// fakeNet stands in for DNS and the network: names resolve to the public
// addresses in hosts and every dial, whatever checked address it is for,
// reaches the local test site. The guard sees only public addresses and is
// not loosened: a URL or a redirect naming a private address is refused
// before any dial.
type fakeNet struct {
	hosts  map[string]string
	target string
	dials  atomic.Int32
}

func (f *fakeNet) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	a, ok := f.hosts[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []net.IPAddr{{IP: net.ParseIP(a)}}, nil
}

func (f *fakeNet) Dial(ctx context.Context, network, _ string) (net.Conn, error) {
	f.dials.Add(1)
	return (&net.Dialer{}).DialContext(ctx, network, f.target)
}

// site is a local test site reachable as http://site.example/ through
// a fakeNet.
type site struct {
	srv  *httptest.Server
	net  *fakeNet
	hits atomic.Int32
	mu   sync.Mutex
	docs map[string]page
}

type page struct {
	contentType string
	body        []byte
	redirect    string
}

func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{docs: map[string]page{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		p, ok := s.docs[r.URL.Path]
		s.mu.Unlock()
		switch {
		case !ok:
			http.NotFound(w, r)
		case p.redirect != "":
			http.Redirect(w, r, p.redirect, http.StatusFound)
		default:
			w.Header().Set("Content-Type", p.contentType)
			w.Write(p.body)
		}
	}))
	t.Cleanup(s.srv.Close)
	s.net = &fakeNet{hosts: map[string]string{"site.example": "93.184.216.34", "mirror.example": "93.184.216.35"},
		target: s.srv.Listener.Addr().String()}
	return s
}

func (s *site) serve(path, contentType string, body []byte) {
	s.mu.Lock()
	s.docs[path] = page{contentType: contentType, body: body}
	s.mu.Unlock()
}

func (s *site) redirect(path, to string) {
	s.mu.Lock()
	s.docs[path] = page{redirect: to}
	s.mu.Unlock()
}

func (s *site) client() *fetch.Client {
	return fetch.New(fetch.Options{Dialer: s.net.Dial, Resolver: s.net, Timeout: 10 * time.Second})
}

// recorder collects a worker's events.
type recorder struct {
	mu     sync.Mutex
	events []event
	ch     chan event
}

type event struct {
	typ     string
	payload any
}

func newRecorder() *recorder { return &recorder{ch: make(chan event, 1024)} }

func (r *recorder) sink(ev ingest.Event) {
	typ, payload := fmt.Sprintf("%T", ev), any(ev)
	r.mu.Lock()
	r.events = append(r.events, event{typ, payload})
	r.mu.Unlock()
	r.ch <- event{typ, payload}
}

// finished waits for the done or failed event of item id.
func (r *recorder) finished(t *testing.T, id uint64) event {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case e := <-r.ch:
			switch p := e.payload.(type) {
			case ingest.Done:
				if p.ID == id {
					return e
				}
			case ingest.Failed:
				if p.ID == id {
					return e
				}
			}
		case <-timeout:
			t.Fatalf("item %d did not finish in 30s; events: %v", id, r.all())
		}
	}
}

func (r *recorder) all() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event(nil), r.events...)
}

// steps lists the progress steps seen for item id, in order.
func (r *recorder) steps(id uint64) []string {
	var out []string
	for _, e := range r.all() {
		if p, ok := e.payload.(ingest.Progress); ok && p.ID == id {
			s := string(p.Step)
			if p.Total > 0 {
				s += fmt.Sprintf(" %d/%d", p.Index, p.Total)
			}
			out = append(out, s)
		}
	}
	return out
}

// rig is a worker on a temp vault and queue, reaching a test site.
type rig struct {
	t     *testing.T
	vault string
	queue string
	site  *site
	w     *Worker
	ev    *recorder
	stop  func()
	calls atomic.Int32 // fake compiler calls
	// hold, when set, stops the fake compiler in its writing step (after
	// it says so on holding) until it is closed.
	hold    chan struct{}
	holding chan string
}

type rigOption func(*Options, *rig)

func newRig(t *testing.T, opts ...rigOption) *rig {
	t.Helper()
	r := &rig{t: t, vault: t.TempDir(), queue: filepath.Join(t.TempDir(), "queue"), site: newSite(t), ev: newRecorder()}
	q, err := ingest.OpenQueue(r.queue)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Queue: q, Fetch: r.site.client(), Vault: r.vault, Folder: "Quire", Events: r.ev.sink, Inbox: -1}
	for _, f := range opts {
		f(&o, r)
	}
	r.w = New(o)
	r.w.compile = r.fakeCompile
	t.Cleanup(func() { r.halt(); q.Close() })
	return r
}

// run starts the worker.
func (r *rig) run() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.w.Run(ctx); close(done) }()
	r.stop = func() { cancel(); <-done }
}

func (r *rig) halt() {
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
}

func (r *rig) add(source string) ingest.Item {
	r.t.Helper()
	it, _, err := r.w.Add(source, false)
	if err != nil {
		r.t.Fatalf("add %s: %v", source, err)
	}
	return it
}

// fakeCompile stands in for the compiler in tests of the runner: it
// reports reading two chunks and writing, then writes the extracted
// Markdown as Quire/Sources/<title>.md.
func (r *rig) fakeCompile(ctx context.Context, src compile.Source, opt compile.Options) (compile.Result, error) {
	r.calls.Add(1)
	for i := 1; i <= 2; i++ {
		if err := ctx.Err(); err != nil {
			return compile.Result{}, err
		}
		opt.Progress(ingest.StepReading, i, 2)
	}
	opt.Progress(ingest.StepWriting, 0, 0)
	if r.hold != nil {
		r.holding <- src.Origin
		<-r.hold
		if err := ctx.Err(); err != nil {
			return compile.Result{}, err // the real compiler stops between notes
		}
	}
	note := "Quire/Sources/" + src.Doc.Title + ".md"
	full := filepath.Join(opt.Vault, filepath.FromSlash(note))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return compile.Result{}, err
	}
	body := fmt.Sprintf("---\nsource: %s\nraw: %s\n---\n%s\n", src.Origin, src.Raw, src.Doc.Markdown)
	if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
		return compile.Result{}, err
	}
	opt.Written(ingest.Written{Path: note, Kind: "source", Created: true})
	return compile.Result{Note: note, Title: src.Doc.Title, Written: []string{note}, Summarised: opt.Model != nil}, nil
}

func article(title, body string) []byte {
	return []byte(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>` + title + `</title>
<meta name="author" content="Ada Field"></head><body><nav>Home | About</nav><article><h1>` + title + `</h1>
<p>` + body + `</p>
<p>Field trials over three seasons show that yield rises with soil moisture up to a point and then falls, because waterlogged roots cannot take up oxygen. The effect is strongest in clay soils, where water drains slowly.</p>
<h2>Methods</h2><p>Sensors were buried at two depths in each plot and read every hour through the growing season, then calibrated against weighed soil samples each spring.</p>
</article><footer>© 2024</footer></body></html>`)
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantFailed(t *testing.T, e event, code ingest.FailCode, contains string) {
	t.Helper()
	f, ok := e.payload.(ingest.Failed)
	if !ok {
		t.Fatalf("got %s %+v, want ingest.failed %s", e.typ, e.payload, code)
	}
	if f.Code != code || !strings.Contains(f.Message, contains) {
		t.Errorf("failed %s %q, want %s containing %q", f.Code, f.Message, code, contains)
	}
}

func wantDone(t *testing.T, e event) ingest.Done {
	t.Helper()
	d, ok := e.payload.(ingest.Done)
	if !ok {
		t.Fatalf("got %s %+v, want ingest.done", e.typ, e.payload)
	}
	return d
}
