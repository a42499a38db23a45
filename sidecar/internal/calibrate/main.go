// Command calibrate checks the dense floor's rule (search.Floor) on real
// vaults: each vault's floor, the cosine of the passages that answer its
// dev questions (those only the dense channel found are the ones the
// floor could drop), and how many other made-up queries still clear it
// (README, "Figures"):
//
//	go run ./internal/calibrate -state tmp/eval \
//	    ariostea=../shared/bench/ariostea-wiki/corpus=../shared/bench/ariostea-wiki/dev/gold.dev.json ...
//
// Each NAME=VAULT=GOLD (GOLD may be empty) is opened with the state folder STATE/NAME (as
// scripts/eval-all leaves it) and brought up to date first.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/eval"
	"github.com/quire-app/quire/sidecar/search"
)

func main() {
	state := flag.String("state", "tmp/eval", "state folders, one per vault (STATE/NAME)")
	nonsense := flag.Int("nonsense", 200, "queries of made-up words per vault")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: calibrate [-state DIR] NAME=VAULT=GOLD...")
		os.Exit(2)
	}
	ctx := context.Background()
	var allGold, allDenseOnly, allNoise []float64
	fmt.Println("vault      floor  answering below  found by meaning only below  made-up queries above")
	for _, arg := range flag.Args() {
		parts := strings.SplitN(arg, "=", 3)
		if len(parts) != 3 {
			fmt.Fprintf(os.Stderr, "calibrate: %q is not NAME=VAULT=GOLD\n", arg)
			os.Exit(2)
		}
		gold, denseOnly, noise, floor, err := measure(ctx, parts[1], *state+"/"+parts[0], parts[2], *nonsense)
		if err != nil {
			fmt.Fprintln(os.Stderr, "calibrate:", parts[0]+":", err)
			os.Exit(1)
		}
		fmt.Printf("%-10s %.3f  %5.3f            %d of %d                       %5.3f\n", parts[0], floor, below(gold, floor), countBelow(denseOnly, floor), len(denseOnly), 1-below(noise, floor))
		report(parts[0], gold, denseOnly, noise)
		allGold, allDenseOnly, allNoise = append(allGold, gold...), append(allDenseOnly, denseOnly...), append(allNoise, noise...)
	}
	report("all", allGold, allDenseOnly, allNoise)
}

func countBelow(xs []float64, f float64) int {
	n := 0
	for _, x := range xs {
		if x < f {
			n++
		}
	}
	return n
}

func below(xs []float64, f float64) float64 { return float64(countBelow(xs, f)) / float64(len(xs)) }

// measure returns, for one vault: the cosine of each question's best
// answering passage among the dense pool; the cosines of the answering
// passages that only the dense channel found in the hybrid pool (what a
// floor could drop); and the best cosine of each made-up query.
func measure(ctx context.Context, vault, state, goldFile string, n int) (gold, denseOnly, noise []float64, floor float64, err error) {
	var qs []eval.Question
	if goldFile != "" {
		if qs, err = eval.Load(goldFile); err != nil {
			return nil, nil, nil, 0, err
		}
	}
	e, err := engine.Open(engine.Setup{Vault: vault, State: state, Foreground: true})
	if err != nil {
		return nil, nil, nil, 0, err
	}
	defer e.Close()
	if err := e.EnableDense(ctx); err != nil {
		return nil, nil, nil, 0, err
	}
	if r, err := e.Reindex(ctx, false, nil); err != nil {
		return nil, nil, nil, 0, err
	} else if r.VectorsErr != nil {
		return nil, nil, nil, 0, r.VectorsErr
	}
	s := e.Searcher()
	pool := search.DefaultFusion.Pool
	for _, q := range qs {
		cos, err := cosines(ctx, s, q.Query, pool)
		if err != nil {
			return nil, nil, nil, 0, err
		}
		p, err := s.PoolFeatures(ctx, q.Query, search.Hybrid)
		if err != nil {
			return nil, nil, nil, 0, err
		}
		best := -1.0
		for _, c := range p.Candidates {
			if !answers(q, c.Passage) {
				continue
			}
			if c.KW == 0 {
				denseOnly = append(denseOnly, cos[c.ID])
			}
		}
		for id, c := range cos {
			if c > best && answersID(ctx, s, q, id) {
				best = c
			}
		}
		if best >= 0 {
			gold = append(gold, best)
		}
	}
	if floor, err = search.NoiseFloor(ctx, s.Dense); err != nil {
		return nil, nil, nil, 0, err
	}
	// Other made-up queries than the floor's own.
	for _, q := range search.MadeUp(n, 7) {
		cos, err := cosines(ctx, s, q, 1)
		if err != nil {
			return nil, nil, nil, 0, err
		}
		for _, c := range cos {
			noise = append(noise, c)
		}
	}
	return gold, denseOnly, noise, floor, nil
}

func cosines(ctx context.Context, s *search.Searcher, q string, n int) (map[string]float64, error) {
	hits, err := s.Dense.SearchDense(ctx, q, n)
	if err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(hits))
	for _, h := range hits {
		out[h.ID] = float64(h.Score)
	}
	return out, nil
}

func answers(q eval.Question, p search.Passage) bool {
	text := eval.Normalize(p.Text)
	for _, sp := range q.Spans {
		if p.Path == sp.Note && strings.Contains(text, eval.Normalize(sp.Text)) {
			return true
		}
	}
	return false
}

func answersID(ctx context.Context, s *search.Searcher, q eval.Question, id string) bool {
	docs, err := s.BM25.Docs(ctx, []string{id})
	if err != nil {
		return false
	}
	h, ok := docs[id]
	return ok && answers(q, search.Passage{Path: h.Path, Text: h.Text})
}

func report(name string, gold, denseOnly, noise []float64) {
	fmt.Printf("%-10s answering passage cosine (n=%d): %s\n", name, len(gold), quantiles(gold))
	fmt.Printf("%-10s   of them found by meaning only in the hybrid pool (n=%d): %s\n", name, len(denseOnly), quantiles(denseOnly))
	fmt.Printf("%-10s made-up query, best cosine (n=%d): %s\n", name, len(noise), quantiles(noise))
}

func quantiles(xs []float64) string {
	if len(xs) == 0 {
		return "-"
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	q := func(p float64) float64 { return search.Quantile(s, p) }
	return fmt.Sprintf("min %.3f p05 %.3f p25 %.3f p50 %.3f p75 %.3f p95 %.3f max %.3f", s[0], q(0.05), q(0.25), q(0.5), q(0.75), q(0.95), s[len(s)-1])
}
