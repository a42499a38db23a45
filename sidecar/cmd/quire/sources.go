package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/quire-app/quire/sidecar/engine"
)

func cmdSources(ctx context.Context, args []string) error {
	var c common
	fs := newFlags("sources", &c)
	sync := fs.Bool("sync", false, "bring every source up to date first, fetching the mirrors of url sources")
	if _, err := parse(fs, &c, args); err != nil {
		return err
	}
	if r := attach(ctx, c); r != nil {
		r.close()
		return fmt.Errorf("sources: the sidecar (pid %d) holds the index; it syncs the sources on its passes. Stop it to list them here", r.cf.PID)
	}
	e, err := open(c, false, nil)
	if err != nil {
		return err
	}
	defer closeEngine(e)
	if e.HasVectors() {
		if err := e.EnableDense(ctx); err != nil {
			return err
		}
	}
	var syncErr error
	if *sync {
		syncErr = e.SyncSources(ctx, true)
	}
	list, err := e.Sources()
	if err != nil {
		return err
	}
	if c.json {
		if err := printJSON(list); err != nil {
			return err
		}
		return syncErr
	}
	printSources(list)
	return syncErr
}

// printSources prints one block per source.
func printSources(list []engine.SourceStatus) {
	for _, s := range list {
		fmt.Printf("%s (%s) %s\n", s.ID, s.Kind, shown(s.Where))
		if s.Revision != "" {
			fmt.Printf("  revision  %s\n", s.Revision)
		}
		fmt.Printf("  notes     %s, passages %s, vectors %s\n", thousands(s.Notes), thousands(s.Passages), thousands(s.Vectors))
		if !s.LastFetch.IsZero() {
			fmt.Printf("  fetched   %s\n", s.LastFetch.Local().Format(time.DateTime))
		}
		if !s.LastSync.IsZero() {
			fmt.Printf("  synced    %s\n", s.LastSync.Local().Format(time.DateTime))
		}
		if s.Error != "" {
			fmt.Printf("  error     %s\n", shown(s.Error))
		}
		for _, sk := range s.Skipped {
			fmt.Printf("  skipped   %s\n", shown(strings.TrimSpace(sk)))
		}
	}
}
