package engine_test

import (
	"strings"
	"testing"

	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
	"github.com/quire-app/quire/sidecar/search"
)

// withModel answers questions with the fake at url.
func withModel(url string) func(*engine.Options) {
	return func(o *engine.Options) {
		o.Config.Model = llm.Config{Provider: "openai", Endpoint: url, Model: "fake", Timeout: llm.Default().Timeout}
	}
}

// A follow-up's earlier turns reach the model's prompt, without their
// citation markers.
func TestAskFollowUpSendsTheConversation(t *testing.T) {
	fake := llmtest.New(t)
	fake.Push(llmtest.Reply{Text: `{"answer": "Once a day [1].", "citations": [1], "quotes": [], "notFound": false}`})
	r := run(t, map[string]string{
		"starter.md": "# Sourdough starter\n\nKeep the starter at equal weights of flour and water. Feed the starter once a day.\n",
	}, withModel(fake.URL))
	ans, err := r.e.Ask(t.Context(), engine.Question{Text: "And how often do I feed it?", History: []ask.Turn{
		{Question: "How wet is the sourdough starter?", Answer: "Equal weights of flour and water [1]."},
	}}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	var user string
	for _, m := range fake.Last(t).Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	if !strings.Contains(user, "<asked>\nHow wet is the sourdough starter?\n</asked>") ||
		!strings.Contains(user, "<answered>\nEqual weights of flour and water.\n</answered>") {
		t.Errorf("the earlier turn did not reach the prompt as sent:\n%s", user)
	}
	if !ans.Grounded || len(ans.Citations) != 1 {
		t.Errorf("answer = %+v, want a grounded answer", ans)
	}
}

// TestAskScope narrows a question to a folder, a tag or a note: the
// passages given (and so cited) change with the scope, which is applied
// before the cut to k, and a scope nothing matches in says so.
func TestAskScope(t *testing.T) {
	files := map[string]string{
		"Garden/Compost.md": "# Compost\n\nFeed the compost heap once a week with kitchen scraps and dry leaves. #compost\n",
		"Garden/Beds.md":    "# Beds\n\nFeed the tomato beds with compost twice a month. #garden\n",
	}
	// Enough kitchen notes to fill k=2 on their own: unscoped, the garden
	// notes are cut.
	for _, n := range []string{"Rye", "Wheat", "Spelt", "Einkorn"} {
		files["Kitchen/"+n+" starter.md"] = "---\ntags: [baking]\n---\n# " + n + " starter\n\nFeed the " + strings.ToLower(n) +
			" starter once a day: feed it flour and water, feed it at room temperature, and feed it again before baking.\n"
	}
	fake := llmtest.New(t)
	fake.SetResponder(func(llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Text: `{"answer": "Once a week [1], or more [2].", "citations": [1, 2], "notFound": false}`}
	})
	r := run(t, files, withModel(fake.URL))
	question := "How often do I feed it?"
	askIn := func(scope search.Filter) ask.Answer {
		t.Helper()
		ans, err := r.e.Ask(t.Context(), engine.Question{Text: question, K: 2, Channel: search.BM25, Scope: scope}, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}
	paths := func(a ask.Answer) []string {
		var out []string
		for _, p := range a.Passages {
			out = append(out, p.Path)
		}
		return out
	}
	for _, p := range paths(askIn(search.Filter{})) {
		if strings.HasPrefix(p, "Garden/") {
			t.Fatalf("fixture: unscoped k=2 already gives %s; the scope would change nothing", p)
		}
	}
	for _, tc := range []struct {
		name  string
		scope search.Filter
		want  func(string) bool
	}{
		{"folder", search.Filter{Folder: "Garden"}, func(p string) bool { return strings.HasPrefix(p, "Garden/") }},
		{"folder with slashes", search.Filter{Folder: "/Garden/"}, func(p string) bool { return strings.HasPrefix(p, "Garden/") }},
		{"tag", search.Filter{Tag: "#Compost"}, func(p string) bool { return p == "Garden/Compost.md" }},
		{"folder and tag", search.Filter{Folder: "Garden", Tag: "garden"}, func(p string) bool { return p == "Garden/Beds.md" }},
		{"this note", search.Filter{Note: "Garden/Compost.md"}, func(p string) bool { return p == "Garden/Compost.md" }},
	} {
		ans := askIn(tc.scope)
		ps := paths(ans)
		if len(ps) == 0 || len(ans.Citations) == 0 {
			t.Errorf("%s: passages %v, citations %d, want an answer from inside the scope", tc.name, ps, len(ans.Citations))
		}
		for _, p := range ps {
			if !tc.want(p) {
				t.Errorf("%s: passage of %s given, outside the scope (%v)", tc.name, p, ps)
			}
		}
		for _, cit := range ans.Citations {
			if !tc.want(cit.Path) {
				t.Errorf("%s: cites %s, outside the scope", tc.name, cit.Path)
			}
		}
	}
	none := askIn(search.Filter{Folder: "Cellar"})
	if len(none.Passages) != 0 || !none.Refused || !strings.Contains(strings.Join(none.Warnings, "; "), "no passage under Cellar/ matches") {
		t.Errorf("a folder with no notes: %+v, want a refusal warning that nothing under Cellar/ matches", none)
	}
	gone := askIn(search.Filter{Note: "Garden/Gone.md"})
	if len(gone.Passages) != 0 || !gone.Refused || !strings.Contains(strings.Join(gone.Warnings, "; "), "no passage of Garden/Gone.md matches") {
		t.Errorf("a note that is not there: %+v, want a refusal naming it", gone)
	}
}
