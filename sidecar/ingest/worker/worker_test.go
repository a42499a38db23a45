package worker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/ingest"
	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/llm"
)

func TestURLBecomesNote(t *testing.T) {
	r := newRig(t)
	r.site.serve("/soil", "text/html; charset=utf-8", article("Soil Moisture and Yield", "Irrigation timing matters more than volume."))
	r.run()
	it := r.add("http://site.example/soil")
	d := wantDone(t, r.ev.finished(t, it.ID))
	if d.Note != "Quire/Sources/Soil Moisture and Yield.md" || d.Title != "Soil Moisture and Yield" {
		t.Errorf("done %+v", d)
	}
	note := readFile(t, filepath.Join(r.vault, d.Note))
	if !strings.Contains(note, "waterlogged roots") || strings.Contains(note, "Home | About") {
		t.Errorf("note is not the extracted article:\n%s", note)
	}
	if !strings.Contains(note, "raw: Quire/raw/Soil Moisture and Yield.html") {
		t.Errorf("compiler was not given the saved original:\n%s", note)
	}
	if got := readFile(t, filepath.Join(r.vault, "Quire/raw/Soil Moisture and Yield.html")); got != string(article("Soil Moisture and Yield", "Irrigation timing matters more than volume.")) {
		t.Errorf("raw original differs from what was served")
	}
	got, want := r.ev.steps(it.ID), []string{"queued", "fetching", "extracting", "reading 1/2", "reading 2/2", "writing"}
	if !slices.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
	q := r.w.Queue()
	done, err := q.Get(it.ID)
	if err != nil || done.State != ingest.StateDone || done.Result != d.Note || done.TextHash == "" {
		t.Errorf("queue item %+v, %v", done, err)
	}
	var written bool
	for _, e := range r.ev.all() {
		if n, ok := e.payload.(ingest.Written); ok && n.Path == d.Note {
			written = true
		}
	}
	if !written {
		t.Error("no note.written event for the source note")
	}
}

// TestDuplicateURL: the same page with a tracking parameter is refused when
// it is added, before anything is fetched or compiled.
func TestDuplicateURL(t *testing.T) {
	r := newRig(t)
	r.site.serve("/soil", "text/html", article("Soil", "One."))
	r.run()
	it := r.add("http://site.example/soil")
	wantDone(t, r.ev.finished(t, it.ID))
	hits, calls := r.site.hits.Load(), r.calls.Load()

	for _, again := range []string{"http://site.example/soil?utm_source=x", "HTTP://Site.Example/soil/#top", "http://site.example/soil?fbclid=abc"} {
		_, _, err := r.w.Add(again, false)
		var dup *ingest.DuplicateError
		if !errors.As(err, &dup) || dup.Existing.ID != it.ID {
			t.Fatalf("Add(%s) = %v, want a duplicate of item %d", again, err, it.ID)
		}
		if code, msg := Failure(err); code != ingest.FailDuplicate || !strings.Contains(msg, "already ingested as Quire/Sources/Soil.md") {
			t.Errorf("Failure = %s %q", code, msg)
		}
	}
	// A page queued after the refusals is worked after anything they
	// could have started: once it is done, the site and the compiler have
	// seen it alone.
	r.site.serve("/after", "text/html", article("After", "Two."))
	wantDone(t, r.ev.finished(t, r.add("http://site.example/after").ID))
	if h, c := r.site.hits.Load(), r.calls.Load(); h != hits+1 || c != calls+1 {
		t.Errorf("a duplicate reached the site (%d→%d hits) or the compiler (%d→%d calls); want one more of each, for the page after", hits, h, calls, c)
	}
}

// TestDuplicateText: the same article under another address is fetched
// and extracted, then refused by its text before the compiler runs.
func TestDuplicateText(t *testing.T) {
	r := newRig(t)
	body := article("Soil", "Same words.")
	r.site.serve("/soil", "text/html", body)
	r.site.serve("/copy-of-soil", "text/html", body)
	r.run()
	wantDone(t, r.ev.finished(t, r.add("http://site.example/soil").ID))
	it := r.add("http://mirror.example/copy-of-soil")
	wantFailed(t, r.ev.finished(t, it.ID), ingest.FailDuplicate, "already ingested as Quire/Sources/Soil.md (the same text")
	if n := r.calls.Load(); n != 1 {
		t.Errorf("compiler ran %d times, want 1: the duplicate must stop before it", n)
	}
}

// TestGuardFailures: the guard's refusals and the site's errors become
// ingest.failed with the right code, a sentence naming the source, and a
// failed queue item; nothing reaches the compiler.
func TestGuardFailures(t *testing.T) {
	r := newRig(t)
	r.site.redirect("/to-private", "http://10.0.0.5/admin")
	r.site.redirect("/to-loopback", "http://127.0.0.1:"+strings.Split(r.site.net.target, ":")[1]+"/soil")
	r.site.serve("/soil", "text/html", article("Soil", "x"))
	r.site.serve("/image", "image/png", []byte("\x89PNG\r\n\x1a\n"))
	r.site.serve("/empty", "text/html", []byte("<html><body></body></html>"))
	r.run()
	tests := []struct {
		url  string
		code ingest.FailCode
		msg  string
	}{
		{"http://site.example/to-private", ingest.FailBlocked, "redirect to http://10.0.0.5/admin: refused: 10.0.0.5 is a private address"},
		{"http://site.example/to-loopback", ingest.FailBlocked, "refused: 127.0.0.1 is a loopback address"},
		{"http://127.0.0.1:" + strings.Split(r.site.net.target, ":")[1] + "/soil", ingest.FailBlocked, "127.0.0.1 is a loopback address"},
		{"http://2130706433/soil", ingest.FailBlocked, "loopback"},
		{"http://169.254.169.254/latest/meta-data", ingest.FailBlocked, "metadata"},
		{"http://localhost/soil", ingest.FailBlocked, "loopback name"},
		{"https://nowhere.example/", ingest.FailFetch, "no such host"},
		{"http://site.example/missing", ingest.FailFetch, "404"},
		{"http://site.example/image", ingest.FailFetch, "image/png"},
		{"http://site.example/empty", ingest.FailExtract, "no readable text"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			dials := r.site.net.dials.Load()
			it := r.add(tt.url)
			e := r.ev.finished(t, it.ID)
			wantFailed(t, e, tt.code, tt.msg)
			if f := e.payload.(ingest.Failed); !strings.Contains(f.Message, tt.url) {
				t.Errorf("message %q does not name the source", f.Message)
			}
			got, _ := r.w.Queue().Get(it.ID)
			if got.State != ingest.StateFailed || got.Attempts != 1 || got.LastError == "" {
				t.Errorf("queue item %+v", got)
			}
			// Only the public test address is ever dialled: once for a
			// redirect's first hop, never for a refused address.
			want := int32(0)
			if strings.Contains(tt.url, "site.example") {
				want = 1
			}
			if got := r.site.net.dials.Load() - dials; tt.code == ingest.FailBlocked && got != want {
				t.Errorf("%d dials, want %d: a refused address was dialled", got, want)
			}
		})
	}
	if n := r.calls.Load(); n != 0 {
		t.Errorf("compiler ran %d times", n)
	}
}

func TestAddRefusesBadSources(t *testing.T) {
	r := newRig(t)
	dir := t.TempDir()
	exe := filepath.Join(dir, "tool.exe")
	os.WriteFile(exe, []byte("MZ"), 0o644)
	for _, src := range []string{"", "ftp://site.example/x", "file:///etc/passwd", "notes/report.pdf", filepath.Join(dir, "missing.pdf"), dir, exe, "https://"} {
		if _, _, err := r.w.Add(src, false); !errors.Is(err, ErrSource) {
			t.Errorf("Add(%q) = %v, want ErrSource", src, err)
		}
	}
	if items, _ := r.w.Queue().List(); len(items) != 0 {
		t.Errorf("queue holds %d items", len(items))
	}
}

func TestFileSource(t *testing.T) {
	r := newRig(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "clip.md")
	os.WriteFile(p, []byte("---\ntitle: Cover crops\nsource: https://example.org/cover\n---\nCover crops keep soil in place over winter and feed it when turned in.\n"), 0o644)
	r.run()
	it := r.add(p)
	d := wantDone(t, r.ev.finished(t, it.ID))
	if d.Note != "Quire/Sources/Cover crops.md" {
		t.Errorf("note %s", d.Note)
	}
	if _, err := os.Stat(filepath.Join(r.vault, "Quire/raw/clip.md")); err != nil {
		t.Errorf("original not saved: %v", err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("the user's file is gone: %v", err)
	}
}

func TestFailureCodes(t *testing.T) {
	tests := []struct {
		err  error
		code ingest.FailCode
	}{
		{&llm.Error{Kind: llm.ErrUnavailable, Detail: "refused"}, ingest.FailModel},
		{&fileError{errors.New("read x: permission denied")}, ingest.FailFetch},
		{&ingest.DuplicateError{By: "text", Existing: ingest.Item{ID: 3, Source: "s", State: ingest.StateQueued}}, ingest.FailDuplicate},
	}
	for _, tt := range tests {
		if got, _ := Failure(tt.err); got != tt.code {
			t.Errorf("Failure(%v) = %s, want %s", tt.err, got, tt.code)
		}
	}
}

// TestStopWaitsForWriting: a stop while the note is being written lets it
// finish and completes the item; a stop while reading puts the item back
// with no attempt counted.
func TestStopWaitsForWriting(t *testing.T) {
	r := newRig(t)
	r.hold, r.holding = make(chan struct{}), make(chan string, 1)
	r.site.serve("/soil", "text/html", article("Soil", "x"))
	r.run()
	it := r.add("http://site.example/soil")
	<-r.holding
	stopped := make(chan struct{})
	go func() { r.halt(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Run returned while the note was being written")
	case <-time.After(100 * time.Millisecond):
	}
	close(r.hold)
	<-stopped
	got, _ := r.w.Queue().Get(it.ID)
	if got.State != ingest.StateDone {
		t.Errorf("item %s after a stop during writing, want done", got.State)
	}
	if _, err := os.Stat(filepath.Join(r.vault, "Quire/Sources/Soil.md")); err != nil {
		t.Error(err)
	}
}

func TestStopDuringReading(t *testing.T) {
	r := newRig(t)
	reading := make(chan struct{})
	r.w.compile = func(ctx context.Context, src compile.Source, opt compile.Options) (compile.Result, error) {
		opt.Progress(ingest.StepReading, 1, 3)
		close(reading)
		<-ctx.Done()
		return compile.Result{}, ctx.Err()
	}
	r.site.serve("/soil", "text/html", article("Soil", "x"))
	r.run()
	it := r.add("http://site.example/soil")
	<-reading
	r.halt()
	got, _ := r.w.Queue().Get(it.ID)
	if got.State != ingest.StateQueued || got.Attempts != 0 {
		t.Errorf("item after a stop during reading: %s with %d attempts, want queued with 0", got.State, got.Attempts)
	}
	for _, e := range r.ev.all() {
		if _, failed := e.payload.(ingest.Failed); failed {
			t.Errorf("a stop is not a failure: %+v", e.payload)
		}
	}
}

func TestResummarise(t *testing.T) {
	var model compile.Model = fakeModel{}
	withModel := false
	r := newRig(t, func(o *Options, _ *rig) {
		o.Compile = func() compile.Options {
			if withModel {
				return compile.Options{Model: model}
			}
			return compile.Options{}
		}
	})
	r.site.serve("/soil", "text/html", article("Soil", "x"))
	r.run()
	first := r.add("http://site.example/soil")
	if d := wantDone(t, r.ev.finished(t, first.ID)); d.Summarised {
		t.Fatal("summarised without a model")
	}
	if _, _, err := r.w.Add("http://site.example/soil", true); !errors.Is(err, ErrNoModel) {
		t.Fatalf("resummarise without a model: %v, want ErrNoModel", err)
	}
	withModel = true
	// The page is gone from the site: the saved original is read instead.
	r.site.serve("/soil", "text/html", []byte("<html><body>changed</body></html>"))
	hits := r.site.hits.Load()
	it, _, err := r.w.Add("http://site.example/soil", true)
	if err != nil {
		t.Fatal(err)
	}
	d := wantDone(t, r.ev.finished(t, it.ID))
	if !d.Summarised || d.Note != "Quire/Sources/Soil.md" {
		t.Errorf("resummarised %+v", d)
	}
	if r.site.hits.Load() != hits {
		t.Error("resummarise fetched the page again instead of reading the saved original")
	}
	if entries, _ := os.ReadDir(filepath.Join(r.vault, "Quire/raw")); len(entries) != 1 {
		t.Errorf("raw/ holds %d files, want the one original", len(entries))
	}
}

// TestResummariseOnlyWhatQuireIngested: "summarise again" of a file Quire
// never ingested is refused, whatever a note says; and of one it did, an
// original the (edited) note names outside raw/ is not read: the source is
// fetched again instead.
func TestResummariseOnlyWhatQuireIngested(t *testing.T) {
	r := newRig(t, func(o *Options, _ *rig) {
		o.Compile = func() compile.Options { return compile.Options{Model: fakeModel{}} }
	})
	secret := filepath.Join(t.TempDir(), "taxes.txt")
	if err := os.WriteFile(secret, []byte("My income was 1234.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(r.vault, "Journal"), 0o755)
	if err := os.WriteFile(filepath.Join(r.vault, "Journal", "diary.md"), []byte("# Diary\n\nsecret diary text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.run()
	if _, _, err := r.w.Add(secret, true); !errors.Is(err, ErrNotIngested) {
		t.Fatalf("resummarise of a file never ingested: %v, want ErrNotIngested", err)
	}
	if items, _ := r.w.Queue().List(); len(items) != 0 {
		t.Errorf("the queue holds %+v, want nothing", items)
	}

	r.site.serve("/soil", "text/html", article("Soil", "x"))
	first := r.add("http://site.example/soil")
	d := wantDone(t, r.ev.finished(t, first.ID))
	note := filepath.Join(r.vault, filepath.FromSlash(d.Note))
	b, err := os.ReadFile(note)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "raw: Quire/raw/", "raw: Journal/diary.md\nold: Quire/raw/", 1)
	if edited == string(b) {
		t.Fatalf("the note names no original:\n%s", b)
	}
	if err := os.WriteFile(note, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	hits := r.site.hits.Load()
	it, _, err := r.w.Add("http://site.example/soil", true)
	if err != nil {
		t.Fatal(err)
	}
	wantDone(t, r.ev.finished(t, it.ID))
	if r.site.hits.Load() == hits {
		t.Error("resummarise read the note the edited source note names instead of fetching the page")
	}
}

type fakeModel struct{}

func (fakeModel) Stream(context.Context, []llm.Message, llm.Options, func(string)) (llm.Reply, error) {
	return llm.Reply{}, errors.New("not called by the fake compiler")
}
func (fakeModel) Config() llm.Config { return llm.Config{} }

func TestPosition(t *testing.T) {
	r := newRig(t)
	for i, p := range []string{"/a", "/b", "/c"} {
		_, pos, err := r.w.Add("http://site.example"+p, false)
		if err != nil || pos != i {
			t.Errorf("Add #%d: position %d, %v; want %d", i, pos, err, i)
		}
	}
	// A worker that claims the item before its position is counted (Add
	// kicks the workers first) must not make it wait behind itself.
	claimed, ok, err := r.w.opts.Queue.Claim()
	if err != nil || !ok {
		t.Fatalf("Claim = %v, %v", ok, err)
	}
	if pos, err := r.w.position(claimed.ID); err != nil || pos != 0 {
		t.Errorf("position of the item a worker runs = %d, %v; want 0", pos, err)
	}
}

// TestRetryFailed: adding again a source whose item failed queues that
// item again, counting the failure.
func TestRetryFailed(t *testing.T) {
	r := newRig(t)
	r.run()
	it := r.add("http://site.example/later")
	wantFailed(t, r.ev.finished(t, it.ID), ingest.FailFetch, "404")
	r.site.serve("/later", "text/html", article("Later", "Back up."))
	again, _, err := r.w.Add("http://site.example/later?utm_source=x", false)
	if err != nil || again.ID != it.ID {
		t.Fatalf("Add after a failure = item %d, %v; want item %d again", again.ID, err, it.ID)
	}
	wantDone(t, r.ev.finished(t, it.ID))
	if got, _ := r.w.Queue().Get(it.ID); got.State != ingest.StateDone || got.Attempts != 1 {
		t.Errorf("item %+v, want done after 1 failed attempt", got)
	}
}
