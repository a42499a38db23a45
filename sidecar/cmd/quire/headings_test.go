package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v3"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/mcp"
)

// syncNote has a title and a heading that hold " › ", the breadcrumb's own
// separator: its passage's heading path must reach every front end as the
// list the chunker made, never split at the separator nor led by the title.
const syncNote = "---\ntitle: Phone › Desktop\n---\n# Setup\n\n## Settings › Sync\n\nTurn on vault sync in the settings pane so the notes travel between devices.\n"

var syncHeadings = []string{"Setup", "Settings › Sync"}

// TestHeadingsEverywhere: search --json and ask --json (in process and
// through a sidecar), the websocket, MCP's search and ask, and a saved
// answer's frontmatter (which the plugin's hover reads, see
// plugin/tests/ask.test.ts) give the same heading list.
func TestHeadingsEverywhere(t *testing.T) {
	v := t.TempDir()
	if err := os.WriteFile(filepath.Join(v, "sync.md"), []byte(syncNote), 0o644); err != nil {
		t.Fatal(err)
	}
	st := t.TempDir()
	keywordsOnly(t, st)
	const question = "how do I turn on vault sync?"
	check := func(where, title string, got []string) {
		t.Helper()
		if title != "Phone › Desktop" || !slices.Equal(got, syncHeadings) {
			t.Errorf("%s: title %q, headings %q; want %q, %q", where, title, got, "Phone › Desktop", syncHeadings)
		}
	}
	searchJSON := func(where string) {
		t.Helper()
		out, err := runCLI(t, "search", "--vault", v, "--state", st, "--json", "vault", "sync")
		var res struct{ Passages []proto.Passage }
		if err == nil {
			err = json.Unmarshal([]byte(out), &res)
		}
		if err != nil || len(res.Passages) == 0 {
			t.Fatalf("search --json %s: %q, %v", where, out, err)
		}
		check("search --json "+where, res.Passages[0].Title, res.Passages[0].HeadingPath)
	}
	askJSON := func(where string, save ...string) {
		t.Helper()
		out, err := runCLI(t, append(append([]string{"ask", "--json", "--vault", v, "--state", st}, save...), question)...)
		var done proto.AskDone
		if err == nil {
			err = json.Unmarshal([]byte(out), &done)
		}
		if err != nil || len(done.Citations) == 0 {
			t.Fatalf("ask --json %s: %q, %v", where, out, err)
		}
		check("ask --json "+where, done.Citations[0].Title, done.Citations[0].HeadingPath)
	}
	searchJSON("in process")
	askJSON("in process")

	c := startQuire(t, "serve", "--vault", v, "--state", st, "--port", "0")
	cl, _ := attachTo(t, c, st)
	waitIdle(t, cl, 20*time.Second)
	res, err := cl.Search(context.Background(), proto.SearchQuery{Query: "vault sync"})
	if err != nil || len(res.Passages) == 0 {
		t.Fatalf("search over the websocket: %+v, %v", res, err)
	}
	check("websocket search.result", res.Passages[0].Title, res.Passages[0].HeadingPath)
	searchJSON("through the sidecar")
	askJSON("through the sidecar", "--save")

	saved, _ := filepath.Glob(filepath.Join(v, "Quire", "Answers", "*.md"))
	if len(saved) != 1 {
		t.Fatalf("saved answers %v, want one", saved)
	}
	b, err := os.ReadFile(saved[0])
	if err != nil {
		t.Fatal(err)
	}
	var front struct {
		Citations []struct {
			Note     string   `yaml:"note"`
			Headings []string `yaml:"headingPath"`
		} `yaml:"citations"`
	}
	fm, _, _ := strings.Cut(strings.TrimPrefix(string(b), "---\n"), "\n---\n")
	if err := yaml.Unmarshal([]byte(fm), &front); err != nil || len(front.Citations) == 0 {
		t.Fatalf("saved answer's frontmatter: %v\n%s", err, b)
	}
	check("saved answer", "Phone › Desktop", front.Citations[0].Headings)

	cmd := exec.Command(os.Args[0], "mcp", "--vault", v, "--state", st)
	cmd.Env = append(os.Environ(), "QUIRE_TEST_AS_QUIRE=1")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var found mcp.SearchResult
	callTool(t, cs, "search_knowledge", map[string]any{"query": "vault sync"}, &found)
	if len(found.Passages) == 0 {
		t.Fatalf("MCP search_knowledge: %+v", found)
	}
	check("MCP search_knowledge", found.Passages[0].Title, found.Passages[0].Headings)
	var ans mcp.Answer
	callTool(t, cs, "ask", map[string]any{"question": question}, &ans)
	if len(ans.Citations) == 0 {
		t.Fatalf("MCP ask: %+v", ans)
	}
	check("MCP ask", ans.Citations[0].Title, ans.Citations[0].Headings)
}
