//go:build quiretest

package main

// Tests of --test-hosts, which only a build with the quiretest tag has
// (scripts/test runs them with it).

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
	"github.com/quire-app/quire/sidecar/ingest/fetch"
	"github.com/quire-app/quire/sidecar/state"
)

const testArticle = `<!doctype html><html lang="en"><head><title>Cover Crops</title></head><body>
<article><h1>Cover Crops</h1>
<p>Cover crops keep soil in place over winter. Their roots hold the ground against rain, and when they are turned in during spring they feed the soil with nitrogen.</p>
<p>Clover and rye are common choices; clover fixes nitrogen while rye builds organic matter.</p>
</article></body></html>`

// localSite serves the test article at /cover-crops and returns its
// 127.0.0.1:PORT.
func localSite(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/cover-crops" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(testArticle))
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// nxdomain stands in for DNS in tests: no name resolves, as a .test name
// never does.
type nxdomain struct{}

func (nxdomain) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestTestHostsKeepTheGuard: --test-hosts lets a named test site through
// the guard and nothing else: without the flag the name does not resolve;
// with it, the local address typed in a URL, and names the guard refuses
// by themselves, are still refused.
func TestTestHostsKeepTheGuard(t *testing.T) {
	local := localSite(t)
	port := local[strings.LastIndex(local, ":")+1:]
	th, err := parseTestHosts("site.test=" + local + ",localhost=" + local)
	if err != nil {
		t.Fatal(err)
	}
	th.next = nxdomain{}
	with := th.client(fetch.Options{Timeout: 5 * time.Second})
	var none *testHosts
	without := fetch.New(fetch.Options{Resolver: nxdomain{}, Timeout: 5 * time.Second})
	if c := none.client(fetch.Options{}); c == nil {
		t.Fatal("nil test hosts must give the plain client")
	}
	ctx := context.Background()

	res, err := with.Get(ctx, "http://site.test/cover-crops")
	if err != nil || !strings.Contains(string(res.Body), "Cover crops keep soil") {
		t.Fatalf("with --test-hosts: %v", err)
	}
	if got, want := res.Addr.String(), "198.20.0.1"; got != want {
		t.Errorf("connected as %s, want the stand-in %s", got, want)
	}
	if err := fetch.Check(testHostBase); err != nil {
		t.Errorf("the stand-in address must be one the guard accepts: %v", err)
	}

	for _, tt := range []struct {
		name   string
		client *fetch.Client
		url    string
		kind   error // nil: a lookup failure
	}{
		{"without the flag", without, "http://site.test/cover-crops", nil},
		{"loopback typed in the URL", with, "http://127.0.0.1:" + port + "/cover-crops", fetch.ErrRefused},
		{"localhost mapped by the flag", with, "http://localhost/cover-crops", fetch.ErrRefused},
		{"numeric loopback", with, "http://2130706433:" + port + "/cover-crops", fetch.ErrRefused},
		{"unmapped name", with, "http://other.test/cover-crops", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.client.Get(ctx, tt.url)
			if err == nil {
				t.Fatal("fetched; want refused or unresolvable")
			}
			if tt.kind != nil && !errors.Is(err, tt.kind) {
				t.Errorf("got %v, want %v", err, tt.kind)
			}
			var dns *net.DNSError
			if tt.kind == nil && !errors.As(err, &dns) {
				t.Errorf("got %v, want a failed lookup", err)
			}
		})
	}
}

func TestParseTestHosts(t *testing.T) {
	for _, bad := range []string{"site.test", "=127.0.0.1:1", "site.test=10.0.0.5:80", "site.test=example.com:80", "127.0.0.1=127.0.0.1:80", "site.test=127.0.0.1"} {
		if _, err := parseTestHosts(bad); err == nil {
			t.Errorf("parseTestHosts(%q) accepted", bad)
		}
	}
	th, err := parseTestHosts("a.test=127.0.0.1:1, B.test.=127.0.0.1:2")
	if err != nil {
		t.Fatal(err)
	}
	if th.names["a.test"].String() != "198.20.0.1" || th.names["b.test"].String() != "198.20.0.2" || th.targets[th.names["b.test"]] != "127.0.0.1:2" {
		t.Errorf("mapping %v", th)
	}
}

// TestIngestInProcess: with no sidecar running, quire ingest runs the
// worker itself and prints progress lines; the same page again fails as a
// duplicate with a non-zero exit.
func TestIngestInProcess(t *testing.T) {
	local := localSite(t)
	vault := t.TempDir()
	os.WriteFile(filepath.Join(vault, "Soil.md"), []byte("# Soil\n\nCover crops and compost feed the soil.\n"), 0o644)
	clip := filepath.Join(t.TempDir(), "clip.txt")
	os.WriteFile(clip, []byte("Rye is sown in autumn as a cover crop and cut in spring.\n"), 0o644)
	out, err := runCLI(t, "ingest", "--vault", vault, "--test-hosts", "site.test="+local, "http://site.test/cover-crops", clip)
	if err != nil {
		t.Fatalf("ingest: %v\n%s", err, out)
	}
	for _, want := range []string{
		"[1/2] http://site.test/cover-crops queued",
		"[1/2] http://site.test/cover-crops fetching",
		"[1/2] done → Quire/Sources/Cover Crops.md (not summarised)",
		"[2/2] done → Quire/Sources/",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	note, err := os.ReadFile(filepath.Join(vault, "Quire", "Sources", "Cover Crops.md"))
	if err != nil || !strings.Contains(string(note), "[[Soil") {
		t.Errorf("source note without the related page: %v\n%s", err, note)
	}

	out, err = runCLI(t, "ingest", "--vault", vault, "http://site.test/cover-crops?utm_source=x")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Errorf("duplicate: exit %v, want code 1", err)
	}
	if !strings.Contains(out, "[1/1] failed: duplicate — already ingested as Quire/Sources/Cover Crops.md") {
		t.Errorf("duplicate output:\n%s", out)
	}
}

// TestServeTestHosts: a real `quire serve --test-hosts` process ingests
// from a local site by name over the websocket, refuses the same site by
// its loopback address, and `quire ingest` prints the sidecar's progress.
func TestServeTestHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs quire serve")
	}
	local := localSite(t)
	port := local[strings.LastIndex(local, ":")+1:]
	vault := t.TempDir()
	os.WriteFile(filepath.Join(vault, "Soil.md"), []byte("# Soil\n\nCover crops and compost feed the soil.\n"), 0o644)
	sd := filepath.Join(t.TempDir(), "state")
	c := startQuire(t, "serve", "--vault", vault, "--state", sd, "--test-hosts", "site.test="+local)
	cl, _ := attachTo(t, c, state.Resolve(vault, sd))

	ctx := context.Background()
	var res proto.IngestResult
	if err := cl.Call(ctx, proto.TypeIngestAdd, proto.IngestAdd{Source: "http://site.test/cover-crops"}, &res); err != nil {
		t.Fatal(err)
	}
	var blocked proto.IngestResult
	if err := cl.Call(ctx, proto.TypeIngestAdd, proto.IngestAdd{Source: "http://127.0.0.1:" + port + "/cover-crops"}, &blocked); err != nil {
		t.Fatal(err)
	}
	finished := map[uint64]proto.Envelope{}
	timeout := time.After(30 * time.Second)
	for len(finished) < 2 {
		select {
		case env := <-cl.Events():
			var id struct {
				ID uint64 `json:"id"`
			}
			if env.Type == proto.TypeIngestDone || env.Type == proto.TypeIngestFailed {
				env.Decode(&id)
				finished[id.ID] = env
			}
		case <-timeout:
			t.Fatalf("ingest did not finish in 30 s; stderr:\n%s", c.stderr)
		}
	}
	if e := finished[res.ID]; e.Type != proto.TypeIngestDone {
		t.Errorf("site.test: %s %s, want ingest.done", e.Type, e.Payload)
	}
	var f proto.IngestFailed
	if e := finished[blocked.ID]; e.Type != proto.TypeIngestFailed || e.Decode(&f) != nil || f.Code != proto.FailBlocked {
		t.Errorf("loopback address: %s %s, want ingest.failed blocked", e.Type, e.Payload)
	}

	// quire ingest through the running sidecar.
	clip := filepath.Join(t.TempDir(), "rye.md")
	os.WriteFile(clip, []byte("---\ntitle: Rye\n---\nRye is sown in autumn as a cover crop.\n"), 0o644)
	out, err := runCLI(t, "ingest", "--vault", vault, "--state", sd, clip, "http://site.test/cover-crops#again")
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Errorf("exit %v, want code 1 (one duplicate)", err)
	}
	for _, want := range []string{"[1/2] done → Quire/Sources/Rye.md", "[2/2] failed: duplicate — already ingested as Quire/Sources/Cover Crops.md"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
