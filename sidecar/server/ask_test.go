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
