package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/quire-app/quire/proto"
	"github.com/quire-app/quire/sidecar/ask"
	"github.com/quire-app/quire/sidecar/search"
)

// cmdAsk answers a question from the vault: with the configured model,
// streamed and then checked, or with extracted sentences when there is no
// model or it fails. --json prints the ask.done payload; --save also writes
// the answer as a note.
func cmdAsk(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("ask", &c)
	k := fs.Int("k", 0, "passages to retrieve before packing the model's context (default 20)")
	save := fs.Bool("save", false, "also save the answer as a note in "+ask.DefaultAnswers)
	pos, err := parse(fs, &c, args)
	if err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(pos, " "))
	if question == "" {
		return usageErr("ask: a QUESTION is required")
	}
	a, err := open(c, io.Discard)
	if err != nil {
		return err
	}
	defer a.close()
	if _, err := a.ix.Run(ctx); err != nil {
		return err
	}
	// The best channel the index has: hybrid once vectors exist.
	ch := search.BM25
	if err := a.enableDense(); err != nil {
		fmt.Fprintln(os.Stderr, "quire: warning: search by meaning is off:", err)
	} else if a.ix.Dense() && a.ix.DenseStats().Embedded > 0 {
		ch = search.Hybrid
	}
	s, err := a.searcher()
	if err != nil {
		return err
	}
	asker := &ask.Asker{Search: s, Channel: ch, K: *k, Model: ask.ModelFor(a.cfg.Model), Log: a.st.Join(ask.LogName)}

	var streamed strings.Builder
	onDelta := func(d string) {
		streamed.WriteString(d)
		if !c.json {
			fmt.Print(d)
		}
	}
	ans, err := asker.Ask(ctx, ask.Query{Question: question}, onDelta)
	if err != nil {
		return err
	}
	for _, w := range ans.Warnings {
		fmt.Fprintln(os.Stderr, "quire: warning:", w)
	}
	if *save {
		p, err := ask.SaveNote(c.vault, ask.DefaultAnswers, ans, time.Now())
		if err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "quire: saved", p)
	}
	if c.json {
		return printJSON(askDone(ans))
	}
	if streamed.String() != ans.Text {
		// The checked answer differs from what streamed (a refusal, or
		// extraction after the model failed mid-way): it is the answer.
		fmt.Print("\n\n— checked answer —\n", ans.Text)
	}
	fmt.Println()
	if len(ans.Citations) > 0 {
		fmt.Println("\nSources:")
		for _, c := range ans.Citations {
			fmt.Printf("  [%d] %s  (%s, bytes %d–%d)\n", c.N, c.Crumbs, c.Path, c.Start, c.End)
		}
	}
	for _, q := range ans.Quotes {
		if !q.Verified {
			fmt.Printf("  ! quotation not found in the cited notes: %q\n", q.Text)
		}
	}
	if ans.Dropped > 0 {
		fmt.Printf("  (%d invented citation(s) removed)\n", ans.Dropped)
	}
	return nil
}

// askDone is the ask.done payload for an answer; the server sends the same.
func askDone(a ask.Answer) proto.AskDone {
	d := proto.AskDone{
		Answer: a.Text, Lang: string(a.Lang), Grounded: a.Grounded, Refused: a.Refused, Extracted: a.Extracted,
		DroppedCitations: a.Dropped, Channel: proto.Channel(a.Channel), Warning: strings.Join(a.Warnings, "; "),
		Model: a.Model, Remote: a.Remote, InputTokens: a.InputTokens, OutputTokens: a.OutputTokens,
		Ms:        float64(a.Took.Microseconds()) / 1000,
		Citations: make([]proto.Citation, len(a.Citations)), Quotes: make([]proto.Quote, len(a.Quotes)),
		Passages: make([]string, len(a.Passages)),
	}
	for i, c := range a.Citations {
		d.Citations[i] = proto.Citation{Number: c.N, ID: c.ID, Path: c.Path, Title: c.Title, HeadingPath: headingPath(c.Passage),
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

// headingPath is the breadcrumb "Title › H1 › H2" without the title.
func headingPath(p search.Passage) []string {
	if p.Crumbs == "" {
		return nil
	}
	hs := strings.Split(p.Crumbs, " › ")
	if len(hs) > 0 && hs[0] == p.Title {
		hs = hs[1:]
	}
	return hs
}
