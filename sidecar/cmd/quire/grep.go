package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/grep"
	"github.com/quire-app/quire/sidecar/source"
	"github.com/quire-app/quire/sidecar/state"
)

// cmdGrep searches the vault's current files for a string. It reads the
// files, not the index, so it runs in this process even while a sidecar
// serves the vault.
func cmdGrep(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("grep", &c)
	var o grep.Options
	fs.BoolVar(&o.Regex, "regex", false, "PATTERN is a regular expression (Go's RE2 syntax); else a literal string")
	caseRule := fs.String("case", string(grep.Smart), "smart (sensitive only when PATTERN has an upper-case letter), sensitive or ignore")
	fs.IntVar(&o.Context, "context", 0, fmt.Sprintf("lines shown before and after each match (at most %d)", grep.MaxContext))
	fs.StringVar(&o.Source, "source", "", "only this source (the vault is "+source.Vault+")")
	fs.IntVar(&o.MaxMatches, "max", grep.DefaultMaxMatches, "stop after this many matching lines")
	fs.DurationVar(&o.Timeout, "timeout", grep.DefaultTimeout, "stop after this long")
	pos, err := parse(fs, &c, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("grep: one PATTERN, quoted if it holds spaces")
	}
	if o.MaxMatches <= 0 || o.Timeout <= 0 {
		return usageErr("grep: --max and --timeout must be positive")
	}
	o.Pattern, o.Case = pos[0], grep.Case(*caseRule)
	res, err := engine.GrepFiles(ctx, c.vault, state.Resolve(c.vault, c.state), o)
	var ee *engine.Error
	if errors.As(err, &ee) {
		return usageErr("grep: %s", ee.Message)
	}
	if err != nil {
		return err
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(os.Stderr, "quire: skipped %s: %s\n", shown(source.Key(s.Source, s.Path)), s.Reason)
	}
	if res.Warning != "" {
		fmt.Fprintln(os.Stderr, "quire: warning:", res.Warning)
	}
	if c.json {
		if err := printJSON(res); err != nil {
			return err
		}
	} else if err := printMatches(res.Matches, o.Context > 0); err != nil {
		return err
	}
	if len(res.Matches) == 0 {
		return &exitError{code: 1, err: errors.New("grep: no line matches")}
	}
	return nil
}

// printMatches prints matches as ripgrep does: path:line:text, context
// lines as path-line-text, each line once, and with context -- between
// groups of lines that do not touch. A source's file is named by its key
// (ops:runbooks/deploy.md), the vault's by its path.
func printMatches(ms []grep.Match, context bool) error {
	w := bufio.NewWriter(os.Stdout)
	lastPath, lastLine := "", 0
	line := func(m grep.Match, n int, sep byte, text string) {
		if m.Path == lastPath && n <= lastLine {
			return
		}
		if context && lastPath != "" && (m.Path != lastPath || n > lastLine+1) {
			w.WriteString("--\n")
		}
		fmt.Fprintf(w, "%s%c%d%c%s\n", source.Key(m.Source, m.Path), sep, n, sep, text)
		lastPath, lastLine = m.Path, n
	}
	for k, m := range ms {
		for i, t := range m.Before {
			line(m, m.Line-len(m.Before)+i, '-', t)
		}
		line(m, m.Line, ':', m.Text)
		for i, t := range m.After {
			n := m.Line + 1 + i
			if k+1 < len(ms) && ms[k+1].Path == m.Path && ms[k+1].Line == n {
				break // the next match's line, printed as one, with its own context after it
			}
			line(m, n, '-', t)
		}
	}
	return w.Flush()
}
