// Package bench runs the same few sources through each of several models,
// as ingest would, and scores each run on what the checks measure: replies
// that were valid JSON on the first try, quotes and glossary terms that
// survived the checks against the source, whether the summary is in the
// source's language, the time and the tokens. Each run compiles into a
// temporary vault of its own, so the user's vault is only read.
package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/quire-app/quire/sidecar/ingest/compile"
	"github.com/quire-app/quire/sidecar/ingest/extract"
	"github.com/quire-app/quire/sidecar/lang"
	"github.com/quire-app/quire/sidecar/llm"
	"github.com/quire-app/quire/sidecar/vault"
)

// Model is a chat model, as compile uses it; *llm.Client is one.
type Model interface {
	compile.Model
}

// Source is one source to read: a file's bytes and its name (whose
// extension says its type), and the address of a saved web page.
type Source struct {
	Name string // as shown in the table
	Data []byte
	File string // file name, with its extension
	URL  string
}

// Row is one model's run over one source.
type Row struct {
	Model  string `json:"model"`
	Source string `json:"source"`
	// Calls counts the model's replies asked for; FirstTry those that
	// were valid JSON the first time.
	Calls    int `json:"calls"`
	FirstTry int `json:"firstTry"`
	// Quotes and Terms are those the model proposed; QuotesKept and
	// TermsKept those found in the source.
	Quotes     int `json:"quotes"`
	QuotesKept int `json:"quotesKept"`
	Terms      int `json:"terms"`
	TermsKept  int `json:"termsKept"`
	// SourceLang and SummaryLang are the detected languages ("" unknown).
	SourceLang  string `json:"sourceLang"`
	SummaryLang string `json:"summaryLang"`
	Summarised  bool   `json:"summarised"`
	// Reason says why the source was not summarised.
	Reason       string  `json:"reason,omitempty"`
	Seconds      float64 `json:"seconds"`
	InputTokens  int     `json:"inputTokens"`
	OutputTokens int     `json:"outputTokens"`
}

// SameLang reports whether the summary is in the source's language, as
// far as both can be told.
func (r Row) SameLang() bool {
	return r.SourceLang == "" || r.SummaryLang == "" || r.SourceLang == r.SummaryLang
}

// Run reads every source with every model, in order, calling each (may be
// nil) with every row as it is done. maxCalls caps a source's calls as
// ingest.max_calls does (0: the compiler's default).
func Run(ctx context.Context, models []Model, sources []Source, maxCalls int, each func(Row)) ([]Row, error) {
	var rows []Row
	for _, m := range models {
		for _, s := range sources {
			r, err := run(ctx, m, s, maxCalls)
			if err != nil {
				return rows, err
			}
			rows = append(rows, r)
			if each != nil {
				each(r)
			}
		}
	}
	return rows, nil
}

func run(ctx context.Context, m Model, s Source, maxCalls int) (Row, error) {
	row := Row{Model: m.Config().Model, Source: s.Name}
	doc, err := extract.Any(ctx, s.Data, s.File, "", s.URL)
	if err != nil {
		return row, fmt.Errorf("bench %s: %w", s.Name, err)
	}
	row.SourceLang = string(lang.Detect(doc.Text))
	tmp, err := os.MkdirTemp("", "quire-bench-")
	if err != nil {
		return row, err
	}
	defer os.RemoveAll(tmp)
	cm := &counting{Model: m}
	start := time.Now()
	res, err := compile.Compile(ctx, compile.Source{Doc: doc, Origin: s.Name}, compile.Options{Vault: tmp, Folder: "Quire", Model: cm, MaxCalls: maxCalls})
	row.Seconds = time.Since(start).Seconds()
	if err != nil {
		return row, err
	}
	row.Calls, row.FirstTry = int(cm.calls.Load()), int(cm.firstTry.Load())
	row.InputTokens, row.OutputTokens = res.InputTokens, res.OutputTokens
	row.Summarised, row.Reason = res.Summarised, res.Reason
	row.QuotesKept, row.TermsKept = res.Quotes, res.Terms
	row.Quotes, row.Terms = res.Quotes, res.Terms
	for _, d := range res.Dropped {
		switch d.What {
		case "quote":
			row.Quotes += d.Count
		case "term":
			row.Terms += d.Count
		}
	}
	if res.Summary != "" {
		row.SummaryLang = string(lang.Detect(res.Summary))
	}
	return row, nil
}

// counting is the model as the compiler sees it, counting the replies
// that were valid JSON the first time. Like llm.Client.Chat, it asks once
// more for a reply that was not.
type counting struct {
	Model
	calls, firstTry atomic.Int32
}

func (c *counting) Chat(ctx context.Context, msgs []llm.Message, opts llm.Options) (llm.Reply, error) {
	c.calls.Add(1)
	rep, err := c.Stream(ctx, msgs, opts, nil)
	if !errors.Is(err, llm.ErrBadJSON) {
		if err == nil {
			c.firstTry.Add(1)
		}
		return rep, err
	}
	retry := append(msgs[:len(msgs):len(msgs)],
		llm.Message{Role: llm.Assistant, Content: rep.Text},
		llm.Message{Role: llm.User, Content: "That reply was not valid JSON. Reply again with only the JSON object."})
	again, err := c.Stream(ctx, retry, opts, nil)
	again.InputTokens += rep.InputTokens
	again.OutputTokens += rep.OutputTokens
	return again, err
}

// Originals returns up to n of the originals saved in the generated
// folder's raw/ (the user's own sources), newest first.
func Originals(vaultDir, folder string, n int, maxBytes int64) ([]Source, error) {
	dir := filepath.Join(vaultDir, filepath.FromSlash(folder), "raw")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !e.Type().IsRegular() || e.Name()[0] == '.' {
			continue
		}
		files = append(files, file{e.Name(), info.ModTime()})
	}
	slices.SortFunc(files, func(a, b file) int { return b.mod.Compare(a.mod) })
	var out []Source
	for _, f := range files[:min(n, len(files))] {
		data, err := vault.ReadFile(vaultDir, folder+"/raw/"+f.name, maxBytes)
		if err != nil {
			continue
		}
		out = append(out, Source{Name: f.name, Data: data, File: f.name})
	}
	return out, nil
}
