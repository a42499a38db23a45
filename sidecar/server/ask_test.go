package server

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/llm/llmtest"
)

func TestAskStreamsACheckedAnswer(t *testing.T) {
	fake := llmtest.New(t)
	fake.Push(llmtest.Reply{Text: `{"answer": "Feed it once a day [1]. It lives on the moon [7].", "citations": [1, 7], "notFound": false}`})
	logPath := filepath.Join(t.TempDir(), "asks.jsonl")
	h := start(t, map[string]string{
		"starter.md": "# Sourdough starter\n\nFeed the starter once a day at room temperature.\n",
		"other.md":   "# Monstera\n\nWater when the soil is dry.\n",
	}, func(o *setup) {
		o.Config.Model = llm.Config{Provider: "openai", Endpoint: fake.URL, Model: "fake", Timeout: llm.Default().Timeout}
		o.AskLog = logPath
	})
	c := h.dial()
	defer c.Close()
	var deltas strings.Builder
	var done proto.AskDone
	err := c.Stream(context.Background(), proto.TypeAskQuery, proto.AskQuery{Question: "How often do I feed the starter?"},
		func(env proto.Envelope) error {
			var d proto.AskDelta
			if err := env.Decode(&d); err != nil {
				return err
			}
			deltas.WriteString(d.Text)
			return nil
		}, &done)
	if err != nil {
		t.Fatal(err)
	}
	if !done.Grounded || done.Refused || done.DroppedCitations != 1 || len(done.Citations) != 1 || done.Citations[0].Path != "starter.md" {
		t.Errorf("done = %+v, want a grounded answer citing starter.md with the invented [7] dropped", done)
	}
	if strings.Contains(done.Answer, "[7]") || strings.Contains(deltas.String(), "[7]") {
		t.Errorf("invented citation reached the user: %q / %q", done.Answer, deltas.String())
	}
	if deltas.Len() == 0 {
		t.Error("no ask.delta frames before ask.done")
	}
	if data, err := os.ReadFile(logPath); err != nil || !strings.Contains(string(data), "How often") {
		t.Errorf("asks.jsonl: %q %v", data, err)
	}
}

func TestAskWithoutAModelExtracts(t *testing.T) {
	h := start(t, map[string]string{"starter.md": "# Sourdough starter\n\nFeed the starter once a day at room temperature.\n"})
	c := h.dial()
	defer c.Close()
	var done proto.AskDone
	err := c.Stream(context.Background(), proto.TypeAskQuery, proto.AskQuery{Question: "feed the starter"}, func(proto.Envelope) error { return nil }, &done)
	if err != nil {
		t.Fatal(err)
	}
	if !done.Extracted || len(done.Citations) == 0 {
		t.Errorf("done = %+v, want an extracted answer with citations", done)
	}
	err = c.Stream(context.Background(), proto.TypeAskQuery, proto.AskQuery{Question: "  "}, func(proto.Envelope) error { return nil }, &done)
	if err == nil || !strings.Contains(err.Error(), "invalid_request") {
		t.Errorf("empty question: err = %v, want invalid_request", err)
	}
}

func TestAnswerSave(t *testing.T) {
	h := start(t, map[string]string{"starter.md": "# Sourdough starter\n\nFeed the starter once a day at room temperature.\n"})
	ws := h.raw(nil)
	defer ws.Close()
	h.hello(ws)
	send(t, ws, "a1", proto.TypeAskQuery, proto.AskQuery{Question: "how often do I feed the starter"})
	for {
		env := recv(t, ws)
		if env.Type == proto.TypeAskDone {
			break
		}
		if env.Type != proto.TypeAskDelta {
			t.Fatalf("got %s while waiting for ask.done", env.Type)
		}
	}
	send(t, ws, "s1", proto.TypeAnswerSave, proto.AnswerSave{AskID: "a1"})
	env := recv(t, ws)
	var res proto.AnswerResult
	if env.Type != proto.TypeAnswerResult || env.Decode(&res) != nil || !strings.HasPrefix(res.Path, "Quire/Answers/") {
		t.Fatalf("answer.save: %s %s", env.Type, env.Payload)
	}
	data, err := os.ReadFile(filepath.Join(h.vault, filepath.FromSlash(res.Path)))
	if err != nil || !strings.Contains(string(data), "[[starter") {
		t.Errorf("saved note %s: %v\n%s", res.Path, err, data)
	}
	send(t, ws, "s2", proto.TypeAnswerSave, proto.AnswerSave{AskID: "nope"})
	wantError(t, recv(t, ws), "s2", proto.CodeNotFound)

	// Request ids are each connection's own: another client of the same
	// sidecar (an MCP client beside the plugin) naming "a1" does not save
	// this one's answer.
	other := h.raw(nil)
	defer other.Close()
	h.hello(other)
	send(t, other, "s3", proto.TypeAnswerSave, proto.AnswerSave{AskID: "a1"})
	wantError(t, recv(t, other), "s3", proto.CodeNotFound)
}

// A follow-up's earlier turns travel in ask.query and reach the model's
// prompt, without their citation markers.
func TestAskFollowUpSendsTheConversation(t *testing.T) {
	fake := llmtest.New(t)
	fake.Push(llmtest.Reply{Text: `{"answer": "Once a day [1].", "citations": [1], "quotes": [], "notFound": false}`})
	h := start(t, map[string]string{
		"starter.md": "# Sourdough starter\n\nKeep the starter at equal weights of flour and water. Feed the starter once a day.\n",
	}, func(o *setup) {
		o.Config.Model = llm.Config{Provider: "openai", Endpoint: fake.URL, Model: "fake", Timeout: llm.Default().Timeout}
	})
	c := h.dial()
	defer c.Close()
	var done proto.AskDone
	q := proto.AskQuery{Question: "And how often do I feed it?", History: []proto.AskTurn{
		{Question: "How wet is the sourdough starter?", Answer: "Equal weights of flour and water [1]."},
	}}
	if err := c.Stream(context.Background(), proto.TypeAskQuery, q, func(proto.Envelope) error { return nil }, &done); err != nil {
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
	if !done.Grounded || len(done.Citations) != 1 {
		t.Errorf("done = %+v, want a grounded answer", done)
	}
}

// TestAskScope narrows a question to a folder or a tag: the passages given
// (and so cited) change with the scope, which the engine applies before
// the cut to k, and a scope nothing matches in says so.
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
	h := start(t, files, func(o *setup) {
		o.Config.Model = llm.Config{Provider: "openai", Endpoint: fake.URL, Model: "fake", Timeout: llm.Default().Timeout}
	})
	c := h.dial()
	defer c.Close()
	ask := func(q proto.AskQuery) proto.AskDone {
		t.Helper()
		var done proto.AskDone
		if err := c.Stream(context.Background(), proto.TypeAskQuery, q, func(proto.Envelope) error { return nil }, &done); err != nil {
			t.Fatal(err)
		}
		return done
	}
	paths := func(d proto.AskDone) []string {
		var out []string
		for _, id := range d.Passages {
			out = append(out, id[:strings.LastIndexByte(id, '#')])
		}
		return out
	}
	question := "How often do I feed it?"
	whole := ask(proto.AskQuery{Question: question, K: 2, Channel: proto.ChannelBM25})
	for _, p := range paths(whole) {
		if strings.HasPrefix(p, "Garden/") {
			t.Fatalf("fixture: unscoped k=2 already gives %s (%v); the scope would change nothing", p, paths(whole))
		}
	}
	for _, tc := range []struct {
		name string
		q    proto.AskQuery
		want func(string) bool
	}{
		{"folder", proto.AskQuery{Folder: "Garden"}, func(p string) bool { return strings.HasPrefix(p, "Garden/") }},
		{"folder with slashes", proto.AskQuery{Folder: "/Garden/"}, func(p string) bool { return strings.HasPrefix(p, "Garden/") }},
		{"tag", proto.AskQuery{Tag: "#Compost"}, func(p string) bool { return p == "Garden/Compost.md" }},
		{"folder and tag", proto.AskQuery{Folder: "Garden", Tag: "garden"}, func(p string) bool { return p == "Garden/Beds.md" }},
		{"this note", proto.AskQuery{Note: "Garden/Compost.md"}, func(p string) bool { return p == "Garden/Compost.md" }},
	} {
		q := tc.q
		q.Question, q.K, q.Channel = question, 2, proto.ChannelBM25
		done := ask(q)
		ps := paths(done)
		if len(ps) == 0 || len(done.Citations) == 0 {
			t.Errorf("%s: passages %v, citations %d, want an answer from inside the scope", tc.name, ps, len(done.Citations))
		}
		for _, p := range ps {
			if !tc.want(p) {
				t.Errorf("%s: passage of %s given, outside the scope (%v)", tc.name, p, ps)
			}
		}
		for _, cit := range done.Citations {
			if !tc.want(cit.Path) {
				t.Errorf("%s: cites %s, outside the scope", tc.name, cit.Path)
			}
		}
	}
	none := ask(proto.AskQuery{Question: question, Folder: "Cellar"})
	if len(none.Passages) != 0 || !none.Refused || !strings.Contains(none.Warning, "no passage under Cellar/ matches") {
		t.Errorf("a folder with no notes: %+v, want a refusal warning that nothing under Cellar/ matches", none)
	}
	gone := ask(proto.AskQuery{Question: question, Note: "Garden/Gone.md"})
	if len(gone.Passages) != 0 || !gone.Refused || !strings.Contains(gone.Warning, "no passage of Garden/Gone.md matches") {
		t.Errorf("a note that is not there: %+v, want a refusal naming it", gone)
	}
}

// TestAskTakesAWorkSlot: an ask without a model is retrieval and
// extraction, CPU and memory work: with MaxWork 1 it waits while a search
// holds the slot, then is answered.
func TestAskTakesAWorkSlot(t *testing.T) {
	h := start(t, notes, func(o *setup) { o.Server.MaxWork = 1 })
	entered, release := make(chan struct{}), make(chan struct{})
	var released sync.Once
	// Before the harness's own cleanup, which waits for the search.
	t.Cleanup(func() { released.Do(func() { close(release) }) })
	h.srv.hook = func(typ string) {
		if typ == proto.TypeSearchQuery {
			close(entered)
			<-release
		}
	}
	c := h.dial()
	searched := make(chan error, 1)
	go func() {
		_, err := c.Search(t.Context(), proto.SearchQuery{Query: "sourdough"})
		searched <- err
	}()
	<-entered
	asked := make(chan error, 1)
	go func() {
		var done proto.AskDone
		asked <- c.Stream(t.Context(), proto.TypeAskQuery, proto.AskQuery{Question: "how do I keep the starter"}, func(proto.Envelope) error { return nil }, &done)
	}()
	for h.srv.waiting.Load() == 0 {
		select {
		case err := <-asked:
			t.Fatalf("the ask was answered (%v) while the only work slot was held", err)
		case <-time.After(time.Millisecond):
		}
	}
	released.Do(func() { close(release) })
	if err := <-searched; err != nil {
		t.Fatal(err)
	}
	if err := <-asked; err != nil {
		t.Fatal(err)
	}
}

// TestAskWaitsForTheModelWithoutASlot: while the model works on an
// answer, the ask holds no work slot: with MaxWork 1 a search is answered
// meanwhile, and the ask is answered after.
func TestAskWaitsForTheModelWithoutASlot(t *testing.T) {
	fake := llmtest.New(t)
	working, finish := make(chan struct{}), make(chan struct{})
	var once sync.Once
	fake.SetResponder(func(llmtest.Request) llmtest.Reply {
		once.Do(func() { close(working) })
		<-finish
		return llmtest.Reply{Text: `{"answer": "Equal weights of flour and water [1].", "citations": [1], "notFound": false}`}
	})
	h := start(t, notes, func(o *setup) {
		o.Server.MaxWork = 1
		o.Config.Model = llm.Config{Provider: "openai", Endpoint: fake.URL, Model: "fake", Timeout: llm.Default().Timeout}
	})
	c := h.dial()
	asked := make(chan error, 1)
	var done proto.AskDone
	go func() {
		asked <- c.Stream(t.Context(), proto.TypeAskQuery, proto.AskQuery{Question: "how do I keep the starter"}, func(proto.Envelope) error { return nil }, &done)
	}()
	<-working
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := c.Search(ctx, proto.SearchQuery{Query: "tomatoes"})
	close(finish)
	if err != nil {
		t.Fatalf("search while the model answers: %v", err)
	}
	if err := <-asked; err != nil || !done.Grounded {
		t.Fatalf("ask: %v, %+v", err, done)
	}
}
