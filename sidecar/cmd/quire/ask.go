package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/search"
	"github.com/quire-app/quire/sidecar/server"
)

// cmdAsk answers a question from the vault (through the running sidecar
// when one holds it, else in this process): with the configured model,
// streamed and then checked, or with extracted sentences when there is no
// model or it fails. --folder and --tag narrow the sources. --json prints the ask.done payload; --save also writes
// the answer as a note.
func cmdAsk(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("ask", &c)
	k := fs.Int("k", 0, "passages to retrieve before packing the model's context (default 20)")
	save := fs.Bool("save", false, "also save the answer as a note in <folder>/Answers (Quire/Answers)")
	folder := fs.String("folder", "", "answer only from notes under this vault-relative folder")
	tag := fs.String("tag", "", "answer only from notes with this tag (nested tags count; # optional)")
	pos, err := parse(fs, &c, args)
	if err != nil {
		return err
	}
	question := strings.TrimSpace(strings.Join(pos, " "))
	if question == "" {
		return usageErr("ask: a QUESTION is required")
	}
	// Through the running sidecar when one holds the vault, else in this
	// process.
	e, via, done, err := openVault(ctx, c, true)
	if err != nil {
		return err
	}
	defer done()

	var streamed strings.Builder
	onDelta := func(d string) {
		streamed.WriteString(d)
		if !c.json {
			fmt.Print(d)
		}
	}
	ans, err := e.Ask(ctx, engine.Question{Text: question, K: *k, Scope: search.Filter{Folder: *folder, Tag: *tag}}, onDelta)
	if err != nil {
		if via != "" {
			return fmt.Errorf("ask through %s: %w", via, err)
		}
		return err
	}
	for _, w := range ans.Warnings {
		fmt.Fprintln(os.Stderr, "quire: warning:", shown(w))
	}
	if *save {
		p, err := e.SaveAnswer(ans)
		if err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "quire: saved", p)
	}
	if c.json {
		return printJSON(server.AskDone(ans))
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
			fmt.Printf("  [%d] %s  (%s, bytes %d–%d)\n", c.N, c.Place(), c.Path, c.Start, c.End)
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
