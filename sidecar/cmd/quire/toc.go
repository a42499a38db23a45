package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/quire-app/quire/sidecar/engine"
)

func cmdTOC(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("toc", &c)
	src := fs.String("source", "vault", "the source: vault, or an id under sources: in config.yaml")
	if _, err := parse(fs, &c, args); err != nil {
		return err
	}
	var toc engine.TOC
	if r := attach(ctx, c); r != nil {
		// The sidecar holds the index: it makes the table.
		defer r.close()
		var err error
		if toc, err = r.r.TOC(ctx, *src, false); err != nil {
			return fmt.Errorf("toc from the sidecar (pid %d): %w", r.cf.PID, err)
		}
	} else {
		e, err := open(c, false, nil)
		if err != nil {
			return err
		}
		defer closeEngine(e)
		if toc, err = e.TOC(ctx, *src, false); err != nil {
			return err
		}
	}
	if c.json {
		return printJSON(toc)
	}
	printTOC(toc)
	return nil
}

// printTOC prints a table of contents as Markdown: a heading per folder,
// a list item per note, its headings nested under it.
func printTOC(t engine.TOC) {
	fmt.Printf("# %s", t.Source)
	if t.Revision != "" {
		fmt.Printf(" @ %s", t.Revision[:min(12, len(t.Revision))])
	}
	fmt.Println()
	for _, f := range t.Folders {
		name := f.Folder + "/"
		if f.Folder == "" {
			name = "/"
		}
		fmt.Printf("\n## %s\n\n", shown(name))
		for _, n := range f.Notes {
			line := fmt.Sprintf("- %s — %s", shown(n.Path), shown(n.Title))
			for _, tag := range n.Tags {
				line += " #" + shown(tag)
			}
			fmt.Println(line)
			for _, h := range n.Headings {
				fmt.Printf("%s- %s\n", strings.Repeat("  ", h.Depth), shown(h.Text))
			}
		}
	}
}
