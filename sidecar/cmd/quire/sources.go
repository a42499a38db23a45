package main

import (
	"context"
	"errors"
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
		// The sidecar holds the index: it lists (and syncs) its sources.
		defer r.close()
		list, warning, err := r.r.Sources(ctx, *sync)
		if err != nil {
			return fmt.Errorf("sources from the sidecar (pid %d): %w", r.cf.PID, err)
		}
		var syncErr error
		if warning != "" {
			syncErr = errors.New(warning)
		}
		return printSourceList(c, list, syncErr)
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
	return printSourceList(c, list, syncErr)
}

// printSourceList prints the sources as text or JSON, then returns why a
// sync asked for failed.
func printSourceList(c common, list []engine.SourceStatus, syncErr error) error {
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
