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
// pseudo-queries support. With -objective lambdarank a pair also weighs
// the change in nDCG its swap would make, so the top of the pool counts
// most.
//
// -dev NAME=GOLD,... scores every fitted variant on dev questions (span
// recall@5 per set and per type after the per-note cap, as quire eval
// counts them): that is how a variant is chosen. The dev questions never
// enter a fit. The committed weights are the variant that loses the
// fewest questions on its worst dev set, then gains the most on the mean:
//
//	go run ./sidecar/internal/fitrerank -state tmp/eval -queries 560 -objective lambdarank -l2 0.3 -depth 10 \
//	    -dev ariostea=GOLD,... -out sidecar/search/rerank_model.go ariostea=VAULT ...
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
	dev := flag.String("dev", "", "comma list of NAME=GOLD: score each fitted model on these dev questions (span recall@5 after the per-note cap, as quire eval counts it) to choose between variants")
	objective := flag.String("objective", "ranknet", "ranknet (every pair weighs the same) or lambdarank (a pair weighs the change in nDCG its swap makes)")
	hybridOnly := flag.Bool("hybrid-only", false, "fit the hybrid channel's model only (to compare variants; -out needs both)")
	flag.BoolVar(&devVerbose, "v", false, "list each dev question the model gains or loses")
	flag.BoolVar(&devDebug, "debug", false, "with -v, print the features of each such question's relevant passage and of the passages ranked first")
	byNote := flag.Bool("by-note", false, "the model orders notes; each note's passages keep the fused order among themselves (search.Model.ByNote)")
	depth := flag.Int("depth", 0, "the model reorders only the fused pool's first N passages (0: all): fitted on those, scored so on the dev questions and at query time")
	shapes := flag.String("shapes", "", "comma list of the recipe's shapes to fit on (queries.go; default: all)")
	flag.Float64Var(&swapOdds, "swap", swapOdds, "the odds that the recipe swaps a query word for a neighbour")
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
	if *shapes != "" {
		keep := map[int]bool{}
		for _, f := range strings.Split(*shapes, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				fmt.Fprintln(os.Stderr, "fitrerank: -shapes:", err)
				os.Exit(2)
			}
			keep[n] = true
		}
		for ch := range data {
			for i := range data[ch] {
				data[ch][i] = data[ch][i].only(keep)
			}
		}
	}
	if *depth > 0 {
		for ch := range data {
			for i := range data[ch] {
				data[ch][i] = data[ch][i].head(*depth)
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
	devData, err := cachedDev(ctx, *dev, *state, *cache)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fitrerank:", err)
		os.Exit(1)
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
			if *hybridOnly && ch != search.Hybrid {
				continue
			}
			var train, test []vaultData
			for _, d := range data[ch] {
				if d.Name == *hold {
					test = append(test, d)
				} else {
					train = append(train, d)
				}
			}
			m := fit(train, lambda, off, *objective == "lambdarank")
			m.Depth, m.ByNote = *depth, *byNote
			models[ch] = m
			fmt.Printf("l2 %g %s weights %.3f\n", lambda, ch, m.Weight)
			report(ch, "train", train, m)
			if len(test) > 0 {
				report(ch, "held out", test, m)
			}
			if ch == search.Hybrid {
				reportDev(devData, m)
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
	X     [][search.NumFeatures]float64
	Rel   []bool
	Shape int // the recipe's shape that made it (queries.go)
}

type vaultData struct {
	Name    string
	Queries []query
	Made    int // pseudo-queries made, with or without a relevant passage in the pool
}

// only keeps the queries of the given shapes.
func (d vaultData) only(shapes map[int]bool) vaultData {
	out := vaultData{Name: d.Name}
	for _, q := range d.Queries {
		if shapes[q.Shape] {
			out.Queries = append(out.Queries, q)
		}
	}
	out.Made = len(out.Queries)
	return out
}

// head cuts every pool to its first n passages in the fused order: what
// a model of depth n reorders. A query whose relevant passages are all
// below stays, as a miss that teaches nothing.
func (d vaultData) head(n int) vaultData {
	out := d
	out.Queries = make([]query, len(d.Queries))
	for i, q := range d.Queries {
		k := min(n, len(q.X))
		out.Queries[i] = query{X: q.X[:k], Rel: q.Rel[:k], Shape: q.Shape}
	}
	return out
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
			qd := query{Shape: q.shape}
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
				vd.Queries = append(vd.Queries, query{Shape: q.shape}) // unreachable: counts as a miss, teaches nothing
			}
		}
		out[ch] = vd
		fmt.Fprintf(os.Stderr, "%s %s: %d pseudo-queries\n", name, ch, len(qs))
	}
	return out, nil
}

// fit finds weights by gradient descent on the pairwise logistic loss,
// features standardised over the training pools. With lambda (LambdaRank)
// each pair also weighs the change in its query's nDCG that swapping the
// two would make at the current weights: what is done near the top of a
// pool counts, what is done at rank 40 hardly does.
func fit(data []vaultData, lambda float64, off [search.NumFeatures]bool, lambdaRank bool) search.Model {
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
	// Each query weighs 1/its pairs, each vault's queries 1/their number.
	type pool struct {
		z   [][search.NumFeatures]float64
		rel []bool
		w   float64
	}
	var pools []pool
	for _, d := range data {
		var vp []pool
		for _, q := range d.Queries {
			npos := 0
			for _, r := range q.Rel {
				if r {
					npos++
				}
			}
			if npos == 0 || npos == len(q.Rel) {
				continue
			}
			p := pool{rel: q.Rel, w: 1 / float64(npos*(len(q.Rel)-npos))}
			for _, x := range q.X {
				p.z = append(p.z, std(x))
			}
			vp = append(vp, p)
		}
		for i := range vp {
			vp[i].w /= float64(len(vp))
		}
		pools = append(pools, vp...)
	}
	// The prior is the fused order: the penalty pulls the weights towards
	// it, so a large l2 keeps the pool as fusion ranked it.
	var prior, w [search.NumFeatures]float64
	prior[search.FeatureFused] = 1
	w = prior
	total := 0.0
	for _, p := range pools {
		total += p.w
	}
	// The step shrinks with the penalty: the penalty's own curvature is
	// 2·lambda, and a step past 1/curvature oscillates and diverges.
	const steps = 3000
	rate := 0.5 / (1 + 2*lambda)
	scores := make([]float64, 64)
	ranks := make([]int, 64)
	for it := 0; it < steps; it++ {
		var g [search.NumFeatures]float64
		for _, p := range pools {
			n := len(p.z)
			scores, ranks = scores[:0], ranks[:0]
			for _, z := range p.z {
				s := 0.0
				for i := range w {
					s += w[i] * z[i]
				}
				scores = append(scores, s)
			}
			if lambdaRank {
				order := make([]int, n)
				for i := range order {
					order[i] = i
				}
				sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
				ranks = ranks[:n]
				for r, i := range order {
					ranks[i] = r
				}
			}
			for a := 0; a < n; a++ {
				if !p.rel[a] {
					continue
				}
				for b := 0; b < n; b++ {
					if p.rel[b] {
						continue
					}
					f := p.w / (1 + math.Exp(scores[a]-scores[b]))
					if lambdaRank {
						f *= math.Abs(1/math.Log2(2+float64(ranks[a])) - 1/math.Log2(2+float64(ranks[b])))
					}
					// d/dw log(1+exp(-(s_a-s_b))) = -(z_a-z_b) σ(-(s_a-s_b))
					for i := range g {
						g[i] -= f * (p.z[a][i] - p.z[b][i])
					}
				}
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

// recipeFlags names the flags besides -l2 and -seed that shaped the fit,
// as they were given.
func recipeFlags() string {
	var out []string
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "objective", "depth", "by-note", "shapes", "drop", "swap", "queries":
			out = append(out, "-"+f.Name+" "+f.Value.String())
		}
	})
	if len(out) == 0 {
		return "default flags"
	}
	return strings.Join(out, " ")
}

// write renders the models as Go source.
func write(path string, models map[search.Channel]search.Model, vaults []string, n int, seed int64, lambda float64) error {
	var b strings.Builder
	b.WriteString("// Code generated by internal/fitrerank; DO NOT EDIT.\n\npackage search\n\n")
	fmt.Fprintf(&b, "// Fitted on %d pseudo-queries per vault (seed %d, l2 %g; %s) of:\n", n, seed, lambda, recipeFlags())
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
		if m.Depth > 0 {
			fmt.Fprintf(&b, "\tDepth: %d,\n", m.Depth)
		}
		if m.ByNote {
			b.WriteString("\tByNote: true,\n")
		}
		b.WriteString("}\n\n")
	}
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		return err
	}
	return os.WriteFile(path, src, 0o644)
}

// devQuestion is one dev question's hybrid pool: features, span hits and
// each passage's note, for the per-note cap.
type devQuestion struct {
	Query string
	Type  string
	X     [][search.NumFeatures]float64
	Rel   []bool
	Paths []string
}

type devSet struct {
	Name      string
	PerNote   int
	Questions []devQuestion
}

// cachedDev is collectDev, kept in CACHE.dev beside the training pools'
// cache when there is one (the same -dev, the same code).
func cachedDev(ctx context.Context, spec, state, cache string) ([]devSet, error) {
	if cache == "" || spec == "" {
		return collectDev(ctx, spec, state)
	}
	path := cache + ".dev"
	var sets []devSet
	if f, err := os.Open(path); err == nil {
		err = gob.NewDecoder(f).Decode(&sets)
		f.Close()
		return sets, err
	}
	sets, err := collectDev(ctx, spec, state)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err == nil {
		err = errors.Join(gob.NewEncoder(f).Encode(sets), f.Close())
	}
	return sets, err
}

// collectDev records the hybrid pools of the dev questions named by spec
// (NAME=GOLD,...), each searched in the state folder STATE/NAME that the
// fit's own NAME=VAULT indexed. The dev questions choose between fitted
// variants; they never enter a fit.
func collectDev(ctx context.Context, spec, state string) ([]devSet, error) {
	if spec == "" {
		return nil, nil
	}
	vaults := map[string]string{}
	for _, arg := range flag.Args() {
		name, vault, _ := strings.Cut(arg, "=")
		vaults[name] = vault
	}
	var out []devSet
	for _, item := range strings.Split(spec, ",") {
		name, gold, ok := strings.Cut(item, "=")
		if !ok || vaults[name] == "" {
			return nil, fmt.Errorf("-dev: %q is not NAME=GOLD with a NAME=VAULT argument", item)
		}
		qs, err := eval.Load(gold)
		if err != nil {
			return nil, err
		}
		e, err := engine.Open(engine.Setup{Vault: vaults[name], State: state + "/" + name, Foreground: true})
		if err != nil {
			return nil, err
		}
		ds, err := devPools(ctx, e, name, qs)
		e.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, ds)
	}
	return out, nil
}

func devPools(ctx context.Context, e *engine.Engine, name string, qs []eval.Question) (devSet, error) {
	if err := e.EnableDense(ctx); err != nil {
		return devSet{}, err
	}
	if _, err := e.Reindex(ctx, false, nil); err != nil {
		return devSet{}, err
	}
	s := e.Searcher()
	ds := devSet{Name: name, PerNote: s.PerNote}
	for _, q := range qs {
		pool, err := s.PoolFeatures(ctx, q.Query, search.Hybrid)
		if err != nil {
			return devSet{}, fmt.Errorf("%s: %q: %w", name, q.Query, err)
		}
		dq := devQuestion{Query: q.Query, Type: q.Type, X: pool.Features}
		for _, c := range pool.Candidates {
			rel := false
			text := eval.Normalize(c.Text)
			for _, sp := range q.Spans {
				rel = rel || (c.Path == sp.Note && strings.Contains(text, eval.Normalize(sp.Text)))
			}
			dq.Rel = append(dq.Rel, rel)
			dq.Paths = append(dq.Paths, c.Path)
		}
		ds.Questions = append(ds.Questions, dq)
	}
	return ds, nil
}

// reportDev prints span recall@5 on each dev set, in the fused order and
// reranked, with the per-note cap search applies after the rerank, then
// per question type pooled over the sets.
func reportDev(sets []devSet, m search.Model) {
	if len(sets) == 0 {
		return
	}
	type tally struct{ n, off, on int }
	types := map[string]*tally{}
	var mean0, mean1 float64
	for _, d := range sets {
		var off, on int
		for _, q := range d.Questions {
			fused := make([]int, len(q.X))
			for i := range fused {
				fused[i] = i
			}
			h0 := capHit(fused, q, d.PerNote, 5)
			order, _ := m.Rank(q.X, q.Paths)
			h1 := capHit(order, q, d.PerNote, 5)
			off, on = off+h0, on+h1
			if h0 != h1 && devVerbose {
				fmt.Printf("dev %s %+d [%s] %s\n", d.Name, h1-h0, q.Type, q.Query)
				if devDebug {
					debugQuestion(q, order)
				}
			}
			t := types[q.Type]
			if t == nil {
				t = &tally{}
				types[q.Type] = t
			}
			t.n, t.off, t.on = t.n+1, t.off+h0, t.on+h1
		}
		n := float64(len(d.Questions))
		mean0, mean1 = mean0+float64(off)/n, mean1+float64(on)/n
		fmt.Printf("dev %-12s span@5 %.3f → %.3f  (%+d of %d)\n", d.Name, float64(off)/n, float64(on)/n, on-off, len(d.Questions))
	}
	fmt.Printf("dev mean         span@5 %.3f → %.3f\n", mean0/float64(len(sets)), mean1/float64(len(sets)))
	names := make([]string, 0, len(types))
	for t := range types {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		c := types[t]
		fmt.Printf("dev type %-14s %.3f → %.3f (%d)\n", t, float64(c.off)/float64(c.n), float64(c.on)/float64(c.n), c.n)
	}
}

// devDebug prints, for each question gained or lost, the features of
// the relevant passage and of those the model ranks first.
var devDebug bool

func debugQuestion(q devQuestion, order []int) {
	for r, i := range order[:min(8, len(order))] {
		fmt.Printf("   %2d fused#%-2d rel=%-5v %-30.30s %.2f\n", r, i, q.Rel[i], q.Paths[i], q.X[i])
	}
	for i := range q.Rel {
		if q.Rel[i] {
			r := slices.Index(order, i)
			fmt.Printf("   rel at %d fused#%-2d %.2f\n", r, i, q.X[i])
		}
	}
}

// devVerbose lists each dev question the model gains or loses (-v).
var devVerbose bool

// capHit is 1 when a relevant passage is among the first k of order once
// each note is capped at per passages before the others (search.Diversify).
func capHit(order []int, q devQuestion, per, k int) int {
	ps := make([]search.Passage, len(order))
	for r, i := range order {
		ps[r] = search.Passage{Path: q.Paths[i], ID: strconv.Itoa(i)}
	}
	for r, p := range search.Diversify(ps, per) {
		if r >= k {
			break
		}
		i, _ := strconv.Atoi(p.ID)
		if q.Rel[i] {
			return 1
		}
	}
	return 0
}
