package main

import (
	"context"
	"fmt"
	"os"

	"github.com/quire-app/quire/sidecar/engine"
)

// cmdLint checks the notes Quire wrote and writes Quire/Lint.md and review
// items (engine.Lint), through the running sidecar when there is one. It
// exits 1 when it found something.
func cmdLint(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("lint", &c)
	dry := fs.Bool("dry-run", false, "only look: write no report and no review item")
	if _, err := parse(fs, &c, args); err != nil {
		return err
	}
	var res engine.Lint
	var err error
	if r := attach(ctx, c); r != nil {
		defer r.close()
		res, err = r.r.Lint(ctx, *dry)
	} else {
		var e *engine.Engine
		if e, err = open(c, false, nil); err != nil {
			return err
		}
		defer closeEngine(e)
		res, err = e.Lint(*dry)
	}
	if err != nil {
		return err
	}
	if c.json {
		if err := printJSON(res); err != nil {
			return err
		}
	} else {
		printLint(res)
	}
	if len(res.Defects) > 0 {
		return &exitError{code: 1, err: fmt.Errorf("lint: %d to look at", len(res.Defects))}
	}
	return nil
}

func printLint(res engine.Lint) {
	for _, d := range res.Defects {
		fmt.Printf("%s  %s: %s\n", shown(d.Check), shown(d.Note), shown(d.Detail))
		if d.Review != "" {
			fmt.Printf("     review: %s\n", shown(d.Review))
		}
	}
	fmt.Printf("Checked %d notes: %d to look at", res.Notes, len(res.Defects))
	if len(res.Review) > 0 {
		fmt.Printf(", %d new review item(s)", len(res.Review))
	}
	fmt.Println(".")
	if res.Report != "" {
		fmt.Println("Report:", shown(res.Report))
	}
	if res.Warning != "" {
		fmt.Fprintln(os.Stderr, "quire: warning:", shown(res.Warning))
	}
}
