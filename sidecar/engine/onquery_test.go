package engine_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/search"
)

// TestFetchOnQuery: a url source with fetch: on-query, its remote a real
// repository served over git's HTTP protocol. A query fetches it when
// its last fetch is older than the floor, and not before; a remote that
// hangs does not hold the query past its bound, and once it answers the
// next queries find what it brought.
func TestFetchOnQuery(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	work, remote := filepath.Join(dir, "work"), filepath.Join(dir, "remote.git")
	writeNotes(t, work, map[string]string{"alpha.md": "# Alpha\n\nThe first note.\n"})
	gitIn(t, work, "init", "-q", "-b", "main")
	gitIn(t, work, "add", "-A")
	gitIn(t, work, "commit", "-q", "-m", "first")
	gitIn(t, dir, "clone", "-q", "--bare", work, remote)
	gitIn(t, remote, "update-server-info")
	push := func(name, body string) {
		t.Helper()
		writeNotes(t, work, map[string]string{name: body})
		gitIn(t, work, "add", "-A")
		gitIn(t, work, "commit", "-q", "-m", name)
		gitIn(t, work, "push", "-q", remote, "main")
		gitIn(t, remote, "update-server-info")
	}

	// The remote, over git's dumb HTTP protocol; hold makes it hang
	// until released.
	var mu sync.Mutex
	var hold chan struct{}
	files := http.FileServer(http.Dir(remote))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		h := hold
		mu.Unlock()
		if h != nil {
			select {
			case <-h:
			case <-r.Context().Done():
				return
			}
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()

	vaultDir, stateDir := filepath.Join(dir, "vault"), filepath.Join(dir, "state")
	writeNotes(t, vaultDir, map[string]string{"Home.md": "# Home\n\nMy own note.\n"})
	os.MkdirAll(stateDir, 0o755)
	cfg := "sources:\n  git:\n    notes:\n      url: " + srv.URL + "/\n      fetch: on-query\ndense:\n  embedder: none\n"
	if err := os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(engine.Setup{Vault: vaultDir, State: stateDir})
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	watched := make(chan error, 1)
	go func() { watched <- e.Watch(wctx) }()
	defer func() {
		stop()
		<-watched
		e.Close()
	}()
	for !engine.Passed(e) || engine.Busy(e) {
		if ctx.Err() != nil {
			t.Fatal("no first pass")
		}
		time.Sleep(10 * time.Millisecond)
	}
	find := func(word string) (bool, time.Duration) {
		t.Helper()
		began := time.Now()
		res, err := e.Search(ctx, engine.Query{Text: word, Channel: search.BM25})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.Passages) > 0, time.Since(began)
	}
	lastFetch := func() time.Time {
		t.Helper()
		list, err := e.Sources()
		if err != nil {
			t.Fatal(err)
		}
		if list[1].Error != "" {
			t.Errorf("the source's last sync failed: %s", list[1].Error)
		}
		return list[1].LastFetch
	}
	if ok, _ := find("alpha"); !ok {
		t.Fatal("the first pass did not index the remote's note")
	}

	// Fetched a moment ago: a query inside the floor does not fetch.
	push("zebra.md", "# Zebra\n\nStripes.\n")
	fetched := lastFetch()
	engine.SetFetchFloor(e, time.Hour)
	if ok, _ := find("zebra"); ok {
		t.Error("a query inside the floor fetched")
	}
	time.Sleep(300 * time.Millisecond)
	if got := lastFetch(); !got.Equal(fetched) {
		t.Errorf("last fetch %v, was %v: a query inside the floor fetched", got, fetched)
	}

	// Past the floor: the query fetches, and waits for it a moment.
	engine.SetFetchFloor(e, time.Nanosecond)
	waitFound := func(word string) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; {
			if ok, _ := find(word); ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never found after the remote got it", word)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFound("zebra")
	// The keyword index serves the new note as soon as it is written,
	// a moment before the sync records its fetch.
	for deadline := time.Now().Add(10 * time.Second); !lastFetch().After(fetched); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("found without a fetch recorded")
		}
	}

	// The remote hangs: queries keep their bound and serve what is
	// indexed; released, the fetch lands and the next queries see it.
	mu.Lock()
	hold = make(chan struct{})
	mu.Unlock()
	push("yak.md", "# Yak\n\nWool.\n")
	for i := 0; i < 3; i++ {
		ok, took := find("yak")
		if ok {
			t.Fatal("found yak while the remote hung")
		}
		if took > 5*time.Second {
			t.Errorf("a query waited %v on a hanging fetch", took)
		}
		if ok, _ := find("zebra"); !ok {
			t.Error("zebra no longer served while the remote hung")
		}
	}
	mu.Lock()
	close(hold)
	hold = nil
	mu.Unlock()
	waitFound("yak")
}
