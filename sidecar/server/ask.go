package server

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/source"
)

// handleAsk answers ask.query: ask.delta frames as the answer streams, then
// ask.done with the checked answer, which replaces what was streamed (a
// refusal, or extracted text when the model failed half way).
func (s *Server) handleAsk(ctx context.Context, env proto.Envelope, st Stream) (any, error) {
	var q proto.AskQuery
	if err := env.Decode(&q); err != nil {
		return nil, &proto.Error{Code: proto.CodeInvalidRequest, Message: "ask.query: " + err.Error()}
	}
	history := make([]ask.Turn, len(q.History))
	for i, t := range q.History {
		history[i] = ask.Turn{Question: t.Question, Answer: t.Answer, Passages: t.Passages}
	}
	ans, err := s.e.Ask(ctx, engine.Question{Text: q.Question, K: q.K, Channel: search.Channel(q.Channel), History: history,
		Scope: search.Filter{Folder: q.Folder, Tag: q.Tag, Note: q.Note}, Aside: asideOf(ctx), MCP: q.MCP}, func(text string) {
		_ = st.Part(proto.TypeAskDelta, proto.AskDelta{Text: text})
	})
	if err != nil {
		return nil, prefixed(proto.TypeAskQuery, err)
	}
	s.remember(askKey(st, env.ID), ans)
	return AskDone(ans), nil
}

// keptAnswers is how many recent answers answer.save can still find.
const keptAnswers = 32

// askKey names an ask.query among every connection's: request ids are
// each client's own, and several clients share a sidecar (the plugin, MCP
// clients, the CLI), so one client's answer.save must not find another's
// answer by a colliding id.
func askKey(st Stream, id string) string {
	if cs, ok := st.(connStream); ok {
		return fmt.Sprintf("%d/%s", cs.c.serial, id)
	}
	return id
}

// recent holds the last answers by the connection and id of the
// ask.query that got them (askKey).
type recent struct {
	mu    sync.Mutex
	byID  map[string]ask.Answer
	order []string
}

func (s *Server) remember(id string, ans ask.Answer) {
	r := &s.answers
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID == nil {
		r.byID = map[string]ask.Answer{}
	}
	if _, ok := r.byID[id]; !ok {
		r.order = append(r.order, id)
	}
	r.byID[id] = ans
	for len(r.order) > keptAnswers {
		delete(r.byID, r.order[0])
		r.order = r.order[1:]
	}
}

// saveAnswer writes a remembered answer to Quire/Answers/ as a new note.
func (s *Server) saveAnswer(st Stream, q proto.AnswerSave) (proto.AnswerResult, error) {
	s.answers.mu.Lock()
	ans, ok := s.answers.byID[askKey(st, q.AskID)]
	s.answers.mu.Unlock()
	if !ok {
		return proto.AnswerResult{}, &proto.Error{Code: proto.CodeNotFound, Message: "answer.save: no recent answer for ask " + q.AskID + "; ask again"}
	}
	p, err := s.e.SaveAnswer(ans)
	if err != nil {
		return proto.AnswerResult{}, err
	}
	return proto.AnswerResult{Path: p}, nil
}

// AskDone is the ask.done payload for an answer, sent by the server and
// printed by `quire ask --json`.
func AskDone(a ask.Answer) proto.AskDone {
	d := proto.AskDone{
		Answer: a.Text, Lang: string(a.Lang), Grounded: a.Grounded, Refused: a.Refused, Extracted: a.Extracted,
		DroppedCitations: a.Dropped, Channel: proto.Channel(a.Channel), Warning: strings.Join(a.Warnings, "; "),
		Model: a.Model, Remote: a.Remote, InputTokens: a.InputTokens, OutputTokens: a.OutputTokens,
		Ms:        float64(a.Took.Microseconds()) / 1000,
		Citations: make([]proto.Citation, len(a.Citations)), Quotes: make([]proto.Quote, len(a.Quotes)),
		Passages: make([]string, len(a.Passages)),
	}
	for i, c := range a.Citations {
		src, rel := source.Split(c.Path)
		d.Citations[i] = proto.Citation{Number: c.N, ID: c.ID, Source: src, Path: rel, Title: c.Title, HeadingPath: c.Headings,
			Start: c.Start, End: c.End, Text: c.Text, Hash: c.Hash}
	}
	for i, q := range a.Quotes {
		d.Quotes[i] = proto.Quote{Number: q.N, Text: q.Text, Verified: q.Verified}
	}
	for i, p := range a.Passages {
		d.Passages[i] = p.ID
	}
	return d
}
