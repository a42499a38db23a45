// Command relatedfloor measures where Related pages should stop: on a
// vault whose notes name their topic (frontmatter cluster:, as
// shared/bench/ariostea-wiki's six clusters do), it lists for every
// note the notes Related returns, each with its best cosine to the
// note's text, and counts how many rows of another topic (wrong) and of
// the same topic (right) each floor would drop, beside the vault's dense
// noise floor (search.Floor):
//
//	go run ./internal/relatedfloor -state tmp/eval/ariostea ../shared/bench/ariostea-wiki/corpus
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/quire-app/quire/sidecar/engine"
)

var clusterRe = regexp.MustCompile(`(?m)^cluster:\s*"?([^"\n]+)"?\s*$`)

func main() {
	state := flag.String("state", "", "the vault's state folder (as scripts/eval-all leaves it)")
	k := flag.Int("k", 10, "related notes per note")
	list := flag.Bool("v", false, "list every note's related notes with their cosines")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: relatedfloor -state DIR VAULT")
		os.Exit(2)
	}
	if err := run(context.Background(), flag.Arg(0), *state, *k, *list); err != nil {
		fmt.Fprintln(os.Stderr, "relatedfloor:", err)
		os.Exit(1)
	}
}

type row struct {
	cos   float64
	right bool
}

func run(ctx context.Context, vault, state string, k int, list bool) error {
	cluster := map[string]string{}
	err := filepath.WalkDir(vault, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(vault, p)
		if strings.HasPrefix(rel, ".") {
			return nil
		}
		cluster[filepath.ToSlash(rel)] = "" // no topic: listed, not counted
		if m := clusterRe.FindSubmatch(b); m != nil {
			cluster[filepath.ToSlash(rel)] = string(m[1])
		}
		return nil
	})
	if err != nil {
		return err
	}
	e, err := engine.Open(engine.Setup{Vault: vault, State: state, Foreground: true})
	if err != nil {
		return err
	}
	defer e.Close()
	if err := e.EnableDense(ctx); err != nil {
		return err
	}
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		return err
	}
	s := e.Searcher()
	floor, err := s.Floor.Cosine(ctx, s.Dense)
	if err != nil {
		return err
	}
	var rows []row
	notes := make([]string, 0, len(cluster))
	for p := range cluster {
		notes = append(notes, p)
	}
	sort.Strings(notes)
	for _, p := range notes {
		rel, _, err := e.Related(ctx, engine.Related{Path: p, K: k, Unfloored: true})
		if ee := (*engine.Error)(nil); errors.As(err, &ee) && ee.Kind == engine.NotFound {
			continue // a note the index leaves out (Templates/)
		}
		if err != nil {
			return err
		}
		if list {
			fmt.Println(p)
			for _, r := range rel {
				fmt.Printf("  %.3f  %.3f  %s\n", r.Cosine, r.Score, r.Path)
			}
		}
		for _, r := range rel {
			c := cluster[r.Path]
			if c == "" || cluster[p] == "" {
				continue
			}
			rows = append(rows, row{cos: r.Cosine, right: c == cluster[p]})
		}
	}
	right, wrong := 0, 0
	for _, r := range rows {
		if r.right {
			right++
		} else {
			wrong++
		}
	}
	fmt.Printf("%d notes, %d related rows (k %d): %d of the note's topic, %d of another; vault noise floor %.3f\n", len(notes), len(rows), k, right, wrong, floor)
	fmt.Println("floor   rows kept  wrong dropped  right dropped  precision kept")
	for _, f := range []float64{0, floor, floor + 0.05, floor + 0.1, floor + 0.15, floor + 0.2} {
		kr, kw, dr, dw := 0, 0, 0, 0
		for _, r := range rows {
			switch {
			case r.cos >= f && r.right:
				kr++
			case r.cos >= f:
				kw++
			case r.right:
				dr++
			default:
				dw++
			}
		}
		prec := 0.0
		if kr+kw > 0 {
			prec = float64(kr) / float64(kr+kw)
		}
		fmt.Printf("%.3f   %4d       %4d of %-4d   %4d of %-4d   %.3f\n", f, kr+kw, dw, wrong, dr, right, prec)
	}
	return nil
}
