package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quire-app/quire/sidecar/client"
	"github.com/quire-app/quire/sidecar/config"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/index"
	"github.com/quire-app/quire/sidecar/internal/embedtest"
	"github.com/quire-app/quire/sidecar/server"
	"github.com/quire-app/quire/sidecar/state"
)

// notes is a small real vault: folders, frontmatter tags, an inline nested
// tag, and a dot folder that is never indexed.
var notes = map[string]string{
	"Kitchen/Sourdough.md": "---\ntags: [recipe, bread]\n---\n# Sourdough\n\nA loaf from flour, water and salt.\n\n## Starter\n\nKeep the starter at full hydration: equal weights of flour and water. Feed it every morning.\n",
	"Kitchen/Rye bread.md": "# Rye bread\n\nA sourdough loaf of rye flour, water and salt. #recipe/bread\n\n## Levain\n\nBuild the levain from a ripe rye starter the evening before baking.\n",
	"Garden/Tomatoes.md":   "---\ntags: garden\n---\n# Tomatoes\n\nStake the tomatoes early and water them at the root. Compost from the kitchen feeds them.\n",
	"Travel/Lisbon.md":     "# Lisbon\n\nTrams climb the hills; pastries with custard at every corner.\n",
	".obsidian/secret.md":  "# Hidden\n\nsecret flour recipe\n",
}

func writeNotes(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newVault writes notes into a vault folder inside a parent that also
// holds a file outside the vault, for traversal attempts to aim at.
func newVault(t testing.TB) string {
	t.Helper()
	parent := t.TempDir()
	writeNotes(t, parent, map[string]string{"outside.md": "# Outside\n\nnot in the vault\n"})
	v := filepath.Join(parent, "vault")
	writeNotes(t, v, notes)
	return v
}

func openIndex(t testing.TB, vault string, cfg config.Config) (*index.Index, *state.Dir) {
	t.Helper()
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(vault, st, cfg)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ix.Close(); err != nil {
			t.Error(err)
		}
		st.Close()
	})
	return ix, st
}

// localBackend indexes a fresh vault in this process.
func localBackend(t testing.TB) (Backend, string) {
	t.Helper()
	v := newVault(t)
	return localBackendFor(t, v, config.Default()), v
}

// localBackendFor is localBackend for the vault v under cfg.
func localBackendFor(t testing.TB, v string, cfg config.Config) Backend {
	t.Helper()
	ix, st := openIndex(t, v, cfg)
	if _, err := ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Options{Index: ix, Config: cfg, AskLog: st.Join("asks.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// remoteBackend serves a fresh vault with a real sidecar on loopback and
// talks to it over the protocol, as `quire mcp` does while a sidecar runs.
func remoteBackend(t testing.TB) (Backend, string) {
	t.Helper()
	v := newVault(t)
	return remoteBackendFor(t, v, config.Default()), v
}

// remoteBackendFor is remoteBackend for the vault v under cfg.
func remoteBackendFor(t testing.TB, v string, cfg config.Config) Backend {
	t.Helper()
	return remoteBackendDense(t, v, cfg, nil)
}

// remoteBackendDense is remoteBackendFor with vectors by emb, if not nil.
func remoteBackendDense(t testing.TB, v string, cfg config.Config, emb index.Embedder) Backend {
	t.Helper()
	ix, st := openIndex(t, v, cfg)
	if emb != nil {
		if _, err := ix.EnableDense(st, emb); err != nil {
			t.Fatal(err)
		}
	}
	e, err := engine.New(engine.Options{Index: ix, Config: cfg, Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := server.New(server.Options{Engine: e, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := server.Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	ctx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan error, 1)
	go func() { watched <- e.Watch(ctx) }()
	c, err := client.Dial(context.Background(), "ws://"+l.Addr().String()+"/", srv.Token(), "mcp-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Registered after the index's cleanup, so it runs before it: the
	// server stops before the index closes.
	t.Cleanup(func() {
		c.Close()
		stopWatch()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			t.Error(err)
		}
		<-served
		<-watched
		e.Close()
	})
	r := client.NewRemote(c, 4242)
	r.Poll = 10 * time.Millisecond
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, err := r.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !st.LastIndexed.IsZero() && !st.Indexing {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the sidecar's first pass did not finish")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return r
}

// connectMemory connects the SDK's client to a server for b over the
// in-memory transport.
func connectMemory(t testing.TB, b Backend) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := NewServer(b, Options{Version: "test"}).Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return connect(t, ct)
}

// connectHTTP serves b over Streamable HTTP on a loopback httptest server.
func connectHTTP(t testing.TB, b Backend) *sdk.ClientSession {
	t.Helper()
	hs := httptest.NewServer(NewHTTPHandler(NewServer(b, Options{Version: "test"}), ""))
	t.Cleanup(hs.Close)
	return connect(t, &sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1})
}

func connect(t testing.TB, tr sdk.Transport) *sdk.ClientSession {
	t.Helper()
	cl := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := cl.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and decodes its structured result into out; it fails
// the test on a protocol error or a tool error.
func call(t *testing.T, cs *sdk.ClientSession, name string, args any, out any) {
	t.Helper()
	res := callRaw(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%v): tool error: %s", name, args, text(res))
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatalf("%s: decode %s: %v", name, data, err)
	}
}

func callRaw(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func paths(ps []Passage) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Path)
	}
	return out
}

// TestTools runs every tool, with good and bad arguments, against both
// backends over both transports: the contract every combination keeps.
func TestTools(t *testing.T) {
	backends := map[string]func(testing.TB) (Backend, string){"local": localBackend, "sidecar": remoteBackend}
	transports := map[string]func(testing.TB, Backend) *sdk.ClientSession{"memory": connectMemory, "http": connectHTTP}
	for bname, newBackend := range backends {
		t.Run(bname, func(t *testing.T) {
			b, vault := newBackend(t)
			for tname, connectTo := range transports {
				t.Run(tname, func(t *testing.T) {
					testTools(t, connectTo(t, b), vault, bname+"-"+tname)
				})
			}
		})
	}
}

func testTools(t *testing.T, cs *sdk.ClientSession, vault, name string) {
	t.Run("list", func(t *testing.T) {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tool := range res.Tools {
			got = append(got, tool.Name)
			if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
				t.Errorf("%s: description, input or output schema missing", tool.Name)
			}
		}
		sort.Strings(got)
		want := []string{"ask", "get_note", "grep", "reindex", "search_knowledge", "search_sources", "status", "toc"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("tools %v, want %v", got, want)
		}
	})

	var before Status
	t.Run("status", func(t *testing.T) {
		call(t, cs, "status", map[string]any{}, &before)
		if before.Notes < 4 || before.Chunks < before.Notes || before.LastIndexed == "" || before.Fingerprint == "" || before.Via == "" {
			t.Errorf("status %+v: want 4+ notes, chunks, last index time, fingerprint, via", before)
		}
	})

	t.Run("grep", func(t *testing.T) {
		var got GrepResult
		call(t, cs, "grep", map[string]any{"pattern": "Hydration:", "case": "ignore", "context": 1}, &got)
		want := GrepMatch{Source: "vault", Path: "Kitchen/Sourdough.md", Line: 10, Text: "Keep the starter at full hydration: equal weights of flour and water. Feed it every morning.",
			Before: []string{""}}
		if len(got.Matches) != 1 || !reflect.DeepEqual(got.Matches[0], want) {
			t.Errorf("matches %+v, want %+v", got.Matches, want)
		}
		// The dot folder is not searched; a regular expression finds both loaves.
		call(t, cs, "grep", map[string]any{"pattern": `flour(,| recipe)`, "mode": "regex"}, &got)
		var ps []string
		for _, m := range got.Matches {
			ps = append(ps, m.Path)
		}
		if strings.Join(ps, " ") != "Kitchen/Rye bread.md Kitchen/Sourdough.md" {
			t.Errorf("regex: matches in %v, want the two loaves", ps)
		}
	})

	t.Run("toc", func(t *testing.T) {
		var got engine.TOC
		call(t, cs, "toc", map[string]any{"source": "vault"}, &got)
		var kitchen *engine.TOCFolder
		for i, f := range got.Folders {
			if f.Folder == "Kitchen" {
				kitchen = &got.Folders[i]
			}
		}
		if got.Source != "vault" || kitchen == nil {
			t.Fatalf("toc %+v, want the vault's with its Kitchen folder", got)
		}
		found := false
		for _, n := range kitchen.Notes {
			if n.Path == "Kitchen/Sourdough.md" {
				found = n.Title != "" && len(n.Headings) > 0
			}
		}
		if !found {
			t.Errorf("toc's Kitchen folder %+v, want Kitchen/Sourdough.md with its title and headings", kitchen.Notes)
		}
	})

	t.Run("search_knowledge", func(t *testing.T) {
		var got SearchResult
		call(t, cs, "search_knowledge", map[string]any{"query": "starter hydration flour", "k": 3}, &got)
		if len(got.Passages) == 0 || got.Passages[0].Path != "Kitchen/Sourdough.md" {
			t.Fatalf("passages %v, want Kitchen/Sourdough.md first", paths(got.Passages))
		}
		p := got.Passages[0]
		if len(got.Passages) > 3 || p.Score <= 0 || !strings.Contains(p.Text, "hydration") || p.Headings == nil {
			t.Errorf("passage %+v: want at most 3, a score, the starter text and a heading path", p)
		}
	})

	t.Run("search_knowledge filters", func(t *testing.T) {
		tests := []struct {
			args map[string]any
			want []string // the notes the passages may come from, all of them present
		}{
			{map[string]any{"query": "water", "folder": "Garden"}, []string{"Garden/Tomatoes.md"}},
			{map[string]any{"query": "water", "folder": "Kitchen/"}, []string{"Kitchen/Rye bread.md", "Kitchen/Sourdough.md"}},
			{map[string]any{"query": "water", "tag": "#recipe"}, []string{"Kitchen/Rye bread.md", "Kitchen/Sourdough.md"}}, // frontmatter, and inline nested
			{map[string]any{"query": "water", "tag": "bread"}, []string{"Kitchen/Sourdough.md"}},
			{map[string]any{"query": "water", "tag": "garden", "folder": "Kitchen"}, nil},
		}
		for _, tt := range tests {
			var got SearchResult
			call(t, cs, "search_knowledge", tt.args, &got)
			seen := map[string]bool{}
			for _, p := range got.Passages {
				seen[p.Path] = true
			}
			var notes []string
			for p := range seen {
				notes = append(notes, p)
			}
			sort.Strings(notes)
			if strings.Join(notes, ",") != strings.Join(tt.want, ",") {
				t.Errorf("%v: notes %v, want %v", tt.args, notes, tt.want)
			}
		}
	})

	t.Run("search_sources", func(t *testing.T) {
		var got Sources
		call(t, cs, "search_sources", map[string]any{"query": "sourdough"}, &got)
		hits := map[string]int{}
		for _, s := range got.Notes {
			hits[s.Path] = s.Hits
			if s.Hits < 1 || s.BestScore <= 0 || len(s.Snippets) == 0 || s.Snippets[0].Text == "" {
				t.Errorf("source %+v: want hits, a best score and snippets", s)
			}
		}
		if hits["Kitchen/Sourdough.md"] == 0 || hits["Kitchen/Rye bread.md"] == 0 || len(hits) != 2 {
			t.Errorf("sources %v, want the two notes that say sourdough", hits)
		}
	})

	t.Run("get_note", func(t *testing.T) {
		var got NoteText
		call(t, cs, "get_note", map[string]any{"path": "Kitchen/Rye bread.md"}, &got)
		if want := notes["Kitchen/Rye bread.md"]; got.Text != want || got.Bytes != len(want) || got.Truncated {
			t.Errorf("get_note = %+v, want the note's text", got)
		}
	})

	t.Run("ask", func(t *testing.T) {
		var got Answer
		call(t, cs, "ask", map[string]any{"question": "How often do I feed the starter?"}, &got)
		// No model is configured: the answer is extracted, and says so.
		if !got.Extracted || !strings.Contains(got.Warning, "no model") || len(got.Citations) == 0 {
			t.Fatalf("answer %+v: want an extracted answer with citations and a warning", got)
		}
		if c := got.Citations[0]; c.Path != "Kitchen/Sourdough.md" || c.Text == "" || c.Number != 1 {
			t.Errorf("first citation %+v, want the sourdough starter passage", c)
		}
		// The same question asked of the garden only: the engine narrows
		// the sources before it cuts to k.
		var scoped Answer
		call(t, cs, "ask", map[string]any{"question": "How often do I feed the starter?", "folder": "Garden", "tag": "#Garden"}, &scoped)
		if len(scoped.Citations) == 0 {
			t.Fatalf("scoped answer %+v: want citations from Garden/", scoped)
		}
		for _, c := range scoped.Citations {
			if c.Path != "Garden/Tomatoes.md" {
				t.Errorf("asked of folder Garden and tag garden, cites %s", c.Path)
			}
		}
	})

	t.Run("reindex", func(t *testing.T) {
		added := "Inbox/" + name + ".md"
		writeNotes(t, vault, map[string]string{added: "# New\n\nA note about quinces in syrup.\n"})
		var got Reindexed
		call(t, cs, "reindex", map[string]any{"full": true}, &got)
		var st Status
		call(t, cs, "status", nil, &st)
		if !got.Full || got.Notes != st.Notes || got.Notes <= before.Notes || got.Chunks == 0 || got.Skipped == nil {
			t.Errorf("reindex %+v, status %d notes before and %d after", got, before.Notes, st.Notes)
		}
		var found SearchResult
		call(t, cs, "search_knowledge", map[string]any{"query": "quinces"}, &found)
		if !strings.Contains(strings.Join(paths(found.Passages), ","), added) {
			t.Errorf("after reindex, search for the new note found %v", paths(found.Passages))
		}
		call(t, cs, "reindex", map[string]any{}, &got)
		if got.Full || got.Notes != st.Notes {
			t.Errorf("incremental reindex %+v, want %d notes", got, st.Notes)
		}
	})

	t.Run("bad arguments", func(t *testing.T) {
		tests := []struct {
			tool string
			args map[string]any
			want string // in the error text
		}{
			{"search_knowledge", map[string]any{}, "query"},
			{"search_knowledge", map[string]any{"query": "   "}, "query is empty"},
			{"search_knowledge", map[string]any{"query": "x", "k": 500}, "between 1 and 50"},
			{"search_knowledge", map[string]any{"query": "x", "k": -2}, "between 1 and 50"},
			{"search_knowledge", map[string]any{"query": 7}, "query"},
			{"search_knowledge", map[string]any{"query": "x", "folder": "../etc"}, "not a vault-relative folder"},
			{"search_knowledge", map[string]any{"query": "x", "tag": "a b"}, "one tag"},
			{"search_sources", map[string]any{"query": ""}, "query is empty"},
			{"ask", map[string]any{"question": ""}, "question is empty"},
			{"ask", map[string]any{"question": "x", "folder": "../etc"}, "not a vault-relative folder"},
			{"ask", map[string]any{"question": strings.Repeat("why ", 2000)}, "keep it under"},
			{"get_note", map[string]any{}, "path"},
			{"get_note", map[string]any{"path": "../outside.md"}, "leaves the vault"},
			{"get_note", map[string]any{"path": "Kitchen/../../outside.md"}, "leaves the vault"},
			{"get_note", map[string]any{"path": filepath.Join(filepath.Dir(vault), "outside.md")}, "absolute"},
			{"get_note", map[string]any{"path": "/etc/passwd"}, "absolute"},
			{"get_note", map[string]any{"path": `C:\Windows\win.ini`}, "absolute"},
			{"get_note", map[string]any{"path": `Kitchen\Sourdough.md`}, "backslashes"},
			{"get_note", map[string]any{"path": ".obsidian/secret.md"}, "dot folder"},
			{"get_note", map[string]any{"path": "./Kitchen/Sourdough.md"}, "not clean"},
			{"get_note", map[string]any{"path": "Kitchen/Sourdough.txt"}, "not a Markdown note"},
			{"get_note", map[string]any{"path": "Kitchen/Missing.md"}, "not a note in the index"},
			{"grep", map[string]any{"pattern": ""}, "pattern is empty"},
			{"grep", map[string]any{"pattern": "a(", "mode": "regex"}, "bad pattern"},
			{"grep", map[string]any{"pattern": "x", "mode": "glob"}, "literal or regex"},
			{"grep", map[string]any{"pattern": "x", "max": 1000}, "between 1 and 200"},
			{"grep", map[string]any{"pattern": "x", "context": 50}, "context"},
			{"grep", map[string]any{"pattern": "x", "source": "ops"}, "no such source"},
			{"toc", map[string]any{"source": "Bad Id"}, "source"},
			{"toc", map[string]any{"source": "ops"}, "no source"},
		}
		for _, tt := range tests {
			res := callRaw(t, cs, tt.tool, tt.args)
			if !res.IsError || !strings.Contains(text(res), tt.want) {
				t.Errorf("%s(%v) = error %v %q, want a tool error saying %q", tt.tool, tt.args, res.IsError, text(res), tt.want)
			}
		}
		// The server keeps serving after them.
		var st Status
		call(t, cs, "status", nil, &st)
	})
}

func TestHTTPToken(t *testing.T) {
	b, _ := localBackend(t)
	const token = "0123456789abcdef-secret"
	hs := httptest.NewServer(NewHTTPHandler(NewServer(b, Options{}), token))
	defer hs.Close()

	cl := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, bad := range []string{"", "wrong-token-0123456789"} {
		hc := &http.Client{Transport: bearer{token: bad}}
		if cs, err := cl.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hc, MaxRetries: -1}, nil); err == nil {
			cs.Close()
			t.Errorf("token %q: connected, want refused", bad)
		}
	}
	resp, err := http.Post(hs.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: HTTP %d, want 401", resp.StatusCode)
	}

	hc := &http.Client{Transport: bearer{token: token}}
	cs, err := cl.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("right token: %v", err)
	}
	defer cs.Close()
	var st Status
	call(t, cs, "status", nil, &st)
	if st.Notes < 4 {
		t.Errorf("status through the token: %d notes", st.Notes)
	}
}

// bearer adds an Authorization header when token is not empty.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPOrigin: a browser's request from an origin not allowed is
// refused before it reaches the server, token or not.
func TestHTTPOrigin(t *testing.T) {
	b, _ := localBackend(t)
	hs := httptest.NewServer(NewHTTPHandler(NewServer(b, Options{}), "", "https://tools.example"))
	defer hs.Close()
	for origin, want := range map[string]int{
		"http://evil.example":          http.StatusForbidden,
		"null":                         http.StatusForbidden,
		"http://localhost.evil.org":    http.StatusForbidden,
		"http://127.0.0.1.nip.io:6274": http.StatusForbidden,
		"http://localhost:6274":        0,
		"http://127.0.0.1:6274":        0,
		"https://tools.example":        0,
	} {
		req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Origin", origin)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want != 0 && resp.StatusCode != want || want == 0 && resp.StatusCode == http.StatusForbidden {
			t.Errorf("Origin %s: HTTP %d, want %d (0: not refused)", origin, resp.StatusCode, want)
		}
	}
}

// TestStatusWhileEmbedding: the status tool says, while passages are
// embedded, how many a second and the seconds left, through a running
// sidecar (the engine's test has the estimate itself). The embedder holds
// the second batch of the fifty new notes' passages.
func TestStatusWhileEmbedding(t *testing.T) {
	emb := embedtest.NewHeld()
	v := newVault(t)
	cs := connectMemory(t, remoteBackendDense(t, v, config.Default(), emb))
	emb.Batches.Store(1)
	batch := t.TempDir()
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(batch, fmt.Sprintf("n%02d.md", i)), fmt.Appendf(nil, "# Note %d\n\nThe keel resists leeway, note %d.\n", i, i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(batch, filepath.Join(v, "Batch")); err != nil {
		t.Fatal(err)
	}
	var st Status
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		call(t, cs, "status", nil, &st)
		if st.Vectors != nil && st.Vectors.PerSecond > 0 {
			break
		}
	}
	if vs := st.Vectors; vs == nil || vs.PerSecond <= 0 || vs.SecondsLeft <= 0 || vs.Embedded >= vs.Total {
		t.Fatalf("status while embedding: vectors %+v, want a rate and seconds left", vs)
	}
	close(emb.Release)
}
