package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/quire-app/quire/sidecar/engine"
)

// cmdBench reads the same few sources with each model named and prints a
// table to choose a model by (engine.Bench). It writes nothing to the
// vault, and needs no running sidecar.
func cmdBench(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("bench", &c)
	models := fs.String("models", "", "model names on the configured provider, comma-separated (default: the configured model)")
	pos, err := parse(fs, &c, args)
	if err != nil {
		return err
	}
	var names []string
	for _, n := range strings.Split(*models, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	if err := needFree(ctx, c, "bench"); err != nil {
		return err
	}
	e, err := open(c, false, nil)
	if err != nil {
		return err
	}
	defer closeEngine(e)
	if !c.json {
		fmt.Printf("%-20s %-28s %8s %8s %8s %7s %8s %15s\n", "model", "source", "json 1st", "quotes", "terms", "lang", "time", "tokens in/out")
	}
	each := func(r engine.BenchRow) {
		if c.json {
			return
		}
		lang := r.SourceLang + "=" + r.SummaryLang
		if !r.SameLang() {
			lang = r.SourceLang + "≠" + r.SummaryLang
		}
		if !r.Summarised {
			lang = "-"
		}
		fmt.Printf("%-20s %-28s %8s %8s %8s %7s %7.1fs %15s\n", clipCell(shown(r.Model), 20), clipCell(shown(r.Source), 28),
			fmt.Sprintf("%d/%d", r.FirstTry, r.Calls), fmt.Sprintf("%d/%d", r.QuotesKept, r.Quotes), fmt.Sprintf("%d/%d", r.TermsKept, r.Terms),
			lang, r.Seconds, thousands(r.InputTokens)+"/"+thousands(r.OutputTokens))
		if r.Reason != "" {
			fmt.Printf("  not summarised: %s\n", shown(r.Reason))
		}
	}
	rows, err := e.Bench(ctx, names, pos, each)
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(rows)
	}
	return nil
}

// clipCell cuts a table cell to n characters.
func clipCell(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
