package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

// TestAskAboutSelection: selected text is the answer's first source,
// cited as a passage of its note; a selection from a private note never
// reaches the remote model, and an empty or huge one is refused.
func TestAskAboutSelection(t *testing.T) {
	const secret = "SELMARK-51ab"
	srv := llmtest.New(t)
	srv.SetResponder(func(req llmtest.Request) llmtest.Reply {
		if req.API == llmtest.OpenAIEmbeddings {
			return llmtest.Reply{}
		}
		return llmtest.Reply{Text: "Set the grinder to 14 [1]."}
	})
	dir := t.TempDir()
	vaultDir, stateDir := filepath.Join(dir, "vault"), filepath.Join(dir, "state")
	coffee := "# Coffee\n\nBeans from the market.\n\nThe grinder setting is 14 for the hand grinder, finer for moka.\n"
	writeNotes(t, vaultDir, map[string]string{
		"Kitchen/Coffee.md":     coffee,
		"Kitchen/Tea.md":        "# Tea\n\nGreen tea wants water at 80 degrees, not boiling; the grinder is not needed.\n",
		"Journal/2026-01-05.md": "# Monday\n\nMy grinder " + secret + " broke at setting 14 and I cried.\n",
	})
	os.MkdirAll(stateDir, 0o755)
	cfg := "private: [Journal/]\n" +
		"model:\n  provider: openai\n  endpoint: " + srv.URL + "\n  model: fake\n  remote: \"true\"\n"
	if err := os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := engine.Open(engine.Setup{Vault: vaultDir, State: stateDir, Engine: engine.Options{InboxPoll: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		t.Fatal(err)
	}

	sel := "The grinder setting is 14 for the hand grinder"
	at := strings.Index(coffee, sel)
	ans, err := e.Ask(ctx, engine.Question{Text: "What does this mean?", Selection: &engine.Selection{Path: "Kitchen/Coffee.md", Text: sel, Start: at}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Citations) == 0 || ans.Citations[0].ID != "Kitchen/Coffee.md#selection" || ans.Citations[0].Text != sel ||
		ans.Citations[0].Start != at || ans.Citations[0].End != at+len(sel) {
		t.Fatalf("citations %+v, want the selection first, at its bytes", ans.Citations)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if !strings.Contains(last.Messages[len(last.Messages)-1].Content+last.Messages[0].Content, sel) {
		t.Errorf("the model was not given the selection")
	}

	n := len(srv.Requests())
	private := "My grinder " + secret + " broke at setting 14"
	ans, err = e.Ask(ctx, engine.Question{Text: "Why did the grinder break at setting 14?", Selection: &engine.Selection{Path: "Journal/2026-01-05.md", Text: private, Start: 11}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Requests()) == n {
		t.Fatalf("no request to the model: the public notes should still be asked about")
	}
	for i, req := range srv.Requests()[n:] {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, secret) {
				t.Errorf("request %d carries the private selection", n+i)
			}
		}
	}
	if !strings.Contains(strings.Join(ans.Warnings, "; "), "not sent to the remote model") {
		t.Errorf("warnings %q do not say the private selection was kept here", ans.Warnings)
	}

	for _, bad := range []*engine.Selection{{Path: "Kitchen/Coffee.md", Text: "  "}, {Path: "Kitchen/Coffee.md", Text: strings.Repeat("a", engine.MaxSelection+1)}, {Path: "../outside.md", Text: "x"}} {
		if _, err := e.Ask(ctx, engine.Question{Text: "What?", Selection: bad}, nil); err == nil || !strings.Contains(err.Error(), "selection") {
			t.Errorf("selection %.40q of %s: err %v, want it refused", bad.Text, bad.Path, err)
		}
	}
}
