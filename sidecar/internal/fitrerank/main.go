// Command fitrerank fits the built-in reranker's weights (search/rerank.go)
// on pseudo-queries made from the passages of real vaults, and writes them
// to search/rerank_model.go:
//
//	go run ./internal/fitrerank -state tmp/eval -out search/rerank_model.go \
//	    ariostea=../shared/bench/ariostea-wiki/corpus appunti=../shared/bench/appunti/corpus ...
//
// Each NAME=VAULT is indexed (with the built-in embedder) in STATE/NAME.
// The training data is made by a deterministic recipe (see queries.go),
// never from any gold question: for a sample of passages, a query made
// from one of its sentences, and that sentence as the answer. A pool
// passage is relevant when it is from the same note and holds the whole
// sentence, the rule eval uses for a span hit. The fit is a linear
// pairwise logistic model (RankNet with a linear scorer): every relevant
// passage should score above every other passage of its pool, each query
// weighing the same, each vault the same, the weights pulled towards the
// fused order (l2) so that a feature moves a passage only as far as the
// pseudo-queries support.
package main

import (
	"context"
	"encoding/gob"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/quire-app/quire/sidecar/engine"
	"github.com/quire-app/quire/sidecar/eval"
	"github.com/quire-app/quire/sidecar/search"
)

func main() {
	state := flag.String("state", "tmp/eval", "state folders, one per vault (STATE/NAME)")
	out := flag.String("out", "", "write the fitted models to this Go file (default: print only)")
	perVault := flag.Int("queries", 400, "pseudo-queries per vault")
	seed := flag.Int64("seed", 1, "seed of the passage sample and the recipe's choices")
	lambdas := flag.String("l2", "0.01", "penalty on the weights' distance from the fused order (comma list: one model file each, OUT.L2)")
	hold := flag.String("hold", "", "leave this vault out of the fit and report the model on it")
	cache := flag.String("cache", "", "keep the collected pools in this file and read them from it when it exists (same code, same vaults)")
	drop := flag.String("drop", "", "comma list of features left out of the model (weight 0)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: fitrerank [-state DIR] [-out FILE] NAME=VAULT...")
		os.Exit(2)
	}
	ctx := context.Background()
	data := map[search.Channel][]vaultData{}
	cached := false
	if *cache != "" {
		if f, err := os.Open(*cache); err == nil {
			err = gob.NewDecoder(f).Decode(&data)
			f.Close()
			cached = true
			if err != nil {
				fmt.Fprintln(os.Stderr, "fitrerank: cache:", err)
				os.Exit(1)
			}
		}
	}
	for _, arg := range flag.Args() {
		if cached {
			break
		}
		name, vault, ok := strings.Cut(arg, "=")
		if !ok {
			fmt.Fprintf(os.Stderr, "fitrerank: %q is not NAME=VAULT\n", arg)
			os.Exit(2)
		}
		vd, err := collect(ctx, name, vault, *state+"/"+name, *perVault, *seed)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fitrerank:", err)
			os.Exit(1)
		}
		for ch, d := range vd {
			data[ch] = append(data[ch], d)
		}
	}
	if *cache != "" {
		if _, err := os.Stat(*cache); err != nil {
			f, err := os.Create(*cache)
			if err == nil {
				err = errors.Join(gob.NewEncoder(f).Encode(data), f.Close())
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "fitrerank: cache:", err)
				os.Exit(1)
			}
		}
	}
	var off [search.NumFeatures]bool
	for _, name := range strings.Split(*drop, ",") {
		if i := slices.Index(search.FeatureNames(), name); i >= 0 {
			off[i] = true
		} else if name != "" {
			fmt.Fprintf(os.Stderr, "fitrerank: -drop: no feature %q\n", name)
			os.Exit(2)
		}
	}
	ls := strings.Split(*lambdas, ",")
	for _, lv := range ls {
		lambda, err := strconv.ParseFloat(lv, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fitrerank: -l2:", err)
			os.Exit(2)
		}
		models := map[search.Channel]search.Model{}
		for _, ch := range []search.Channel{search.BM25, search.Hybrid} {
			var train, test []vaultData
			for _, d := range data[ch] {
				if d.Name == *hold {
					test = append(test, d)
				} else {
					train = append(train, d)
				}
			}
			m := fit(train, lambda, off)
			models[ch] = m
			fmt.Printf("l2 %g %s weights %.3f\n", lambda, ch, m.Weight)
			report(ch, "train", train, m)
			if len(test) > 0 {
				report(ch, "held out", test, m)
			}
		}
		if *out != "" {
			path := *out
			if len(ls) > 1 {
				path += "." + lv
			}
			if err := write(path, models, flag.Args(), *perVault, *seed, lambda); err != nil {
				fmt.Fprintln(os.Stderr, "fitrerank:", err)
				os.Exit(1)
			}
		}
	}
}

// query is one pseudo-query's pool: its features and which are relevant.
type query struct {
	X   [][search.NumFeatures]float64
	Rel []bool
}

type vaultData struct {
	Name    string
	Queries []query
	Made    int // pseudo-queries made, with or without a relevant passage in the pool
}

// collect indexes a vault, makes its pseudo-queries and records their
// pools on both channels.
func collect(ctx context.Context, name, vault, state string, n int, seed int64) (map[search.Channel]vaultData, error) {
	if err := os.MkdirAll(state, 0o755); err != nil {
		return nil, err
	}
	e, err := engine.Open(engine.Setup{Vault: vault, State: state, Foreground: true})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	if err := e.EnableDense(ctx); err != nil {
		return nil, err
	}
	if r, err := e.Reindex(ctx, false, nil); err != nil {
		return nil, err
	} else if r.VectorsErr != nil {
		return nil, r.VectorsErr
	}
	s := e.Searcher()
	qs, err := makeQueries(ctx, s, n, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := map[search.Channel]vaultData{}
	for _, ch := range []search.Channel{search.BM25, search.Hybrid} {
		vd := vaultData{Name: name, Made: len(qs)}
		for _, q := range qs {
			pool, err := s.PoolFeatures(ctx, q.text, ch)
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %w", name, q.text, err)
			}
			var qd query
			any := false
			for i, c := range pool.Candidates {
				rel := c.Path == q.path && strings.Contains(eval.Normalize(c.Text), q.span)
				any = any || rel
				qd.X = append(qd.X, pool.Features[i])
				qd.Rel = append(qd.Rel, rel)
			}
			if any {
				vd.Queries = append(vd.Queries, qd)
			} else {
				vd.Queries = append(vd.Queries, query{}) // unreachable: counts as a miss, teaches nothing
			}
		}
		out[ch] = vd
		fmt.Fprintf(os.Stderr, "%s %s: %d pseudo-queries\n", name, ch, len(qs))
	}
	return out, nil
}

// fit finds weights by gradient descent on the pairwise logistic loss,
// features standardised over the training pools.
func fit(data []vaultData, lambda float64, off [search.NumFeatures]bool) search.Model {
	var m search.Model
	var sum, sq [search.NumFeatures]float64
	count := 0.0
	for _, d := range data {
		for _, q := range d.Queries {
			for _, x := range q.X {
				for i, v := range x {
					sum[i] += v
					sq[i] += v * v
				}
				count++
			}
		}
	}
	for i := range m.Mean {
		if off[i] {
			continue // scale 0: the model skips it
		}
		m.Mean[i] = sum[i] / count
		m.Scale[i] = math.Sqrt(max(sq[i]/count-m.Mean[i]*m.Mean[i], 0))
	}
	std := func(x [search.NumFeatures]float64) (z [search.NumFeatures]float64) {
		for i := range x {
			if m.Scale[i] > 0 {
				z[i] = (x[i] - m.Mean[i]) / m.Scale[i]
			}
		}
		return z
	}
	// Pairs, each query's weighing 1/len, each vault's queries 1/len.
	type pair struct {
		d [search.NumFeatures]float64
		w float64
	}
	var pairs []pair
	for _, d := range data {
		var vp []pair
		used := 0
		for _, q := range d.Queries {
			var pos, neg [][search.NumFeatures]float64
			for i, x := range q.X {
				if q.Rel[i] {
					pos = append(pos, std(x))
				} else {
					neg = append(neg, std(x))
				}
			}
			if len(pos) == 0 || len(neg) == 0 {
				continue
			}
			used++
			w := 1 / float64(len(pos)*len(neg))
			for _, p := range pos {
				for _, n := range neg {
					var diff [search.NumFeatures]float64
					for i := range diff {
						diff[i] = p[i] - n[i]
					}
					vp = append(vp, pair{diff, w})
				}
			}
		}
		for i := range vp {
			vp[i].w /= float64(max(used, 1))
		}
		pairs = append(pairs, vp...)
	}
	// The prior is the fused order: the penalty pulls the weights towards
	// it, so a large l2 keeps the pool as fusion ranked it.
	var prior, w [search.NumFeatures]float64
	prior[search.FeatureFused] = 1
	w = prior
	total := 0.0
	for _, p := range pairs {
		total += p.w
	}
	const steps, rate = 3000, 0.5
	for it := 0; it < steps; it++ {
		var g [search.NumFeatures]float64
		for _, p := range pairs {
			s := 0.0
			for i := range w {
				s += w[i] * p.d[i]
			}
			// d/dw log(1+exp(-s)) = -d · σ(-s)
			f := p.w / (1 + math.Exp(s))
			for i := range g {
				g[i] -= f * p.d[i]
			}
		}
		for i := range w {
			if !off[i] {
				w[i] -= rate * (g[i]/total + 2*lambda*(w[i]-prior[i]))
			}
		}
	}
	m.Weight = w
	return m
}

// report prints recall@1 and @5 of the relevant passage on the pools, in
// the fused order and reranked.
func report(ch search.Channel, label string, data []vaultData, m search.Model) {
	for _, d := range data {
		var base1, base5, re1, re5 float64
		for _, q := range d.Queries {
			if len(q.X) == 0 {
				continue
			}
			order := make([]int, len(q.X))
			for i := range order {
				order[i] = i
			}
			b := firstRel(order, q.Rel)
			sort.SliceStable(order, func(a, c int) bool { return m.Score(q.X[order[a]]) > m.Score(q.X[order[c]]) })
			r := firstRel(order, q.Rel)
			base1, base5 = base1+hit(b, 1), base5+hit(b, 5)
			re1, re5 = re1+hit(r, 1), re5+hit(r, 5)
		}
		n := float64(d.Made)
		fmt.Printf("%-7s %-9s %-12s R@1 %.3f → %.3f   R@5 %.3f → %.3f   (%d pseudo-queries)\n", ch, label, d.Name, base1/n, re1/n, base5/n, re5/n, d.Made)
	}
}

func firstRel(order []int, rel []bool) int {
	for r, i := range order {
		if rel[i] {
			return r
		}
	}
	return -1
}

func hit(rank, k int) float64 {
	if rank >= 0 && rank < k {
		return 1
	}
	return 0
}

// write renders the models as Go source.
func write(path string, models map[search.Channel]search.Model, vaults []string, n int, seed int64, lambda float64) error {
	var b strings.Builder
	b.WriteString("// Code generated by internal/fitrerank; DO NOT EDIT.\n\npackage search\n\n")
	fmt.Fprintf(&b, "// Fitted on %d pseudo-queries per vault (seed %d, l2 %g) of:\n", n, seed, lambda)
	for _, v := range vaults {
		name, _, _ := strings.Cut(v, "=")
		fmt.Fprintf(&b, "//   - %s\n", name)
	}
	b.WriteString("// Features, in order: " + strings.Join(search.FeatureNames(), ", ") + ".\n\n")
	for _, c := range []struct {
		name, doc string
		ch        search.Channel
	}{{"keywordsModel", "keywordsModel reranks the keyword channel's pool.", search.BM25}, {"hybridModel", "hybridModel reranks the hybrid channel's pool.", search.Hybrid}} {
		m := models[c.ch]
		fmt.Fprintf(&b, "// %s\nvar %s = Model{\n", c.doc, c.name)
		for _, row := range []struct {
			field string
			v     [search.NumFeatures]float64
		}{{"Mean", m.Mean}, {"Scale", m.Scale}, {"Weight", m.Weight}} {
			fmt.Fprintf(&b, "\t%s: [NumFeatures]float64{", row.field)
			for i, v := range row.v {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%.6g", v)
			}
			b.WriteString("},\n")
		}
		b.WriteString("}\n\n")
	}
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		return err
	}
	return os.WriteFile(path, src, 0o644)
}
