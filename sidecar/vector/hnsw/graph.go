// Package hnsw owns Quire's approximate nearest-neighbour graph: a
// Hierarchical Navigable Small World graph (Malkov & Yashunin) over float32
// vectors compared by cosine similarity.
//
// It is our own because github.com/coder/hnsw v0.6.1 stops its search early
// with only k candidates (recall@10 of 0.2–0.65 here) and corrupts the graph
// on delete. This one keeps an ef-long candidate list, deletes by tombstone
// and repairs the links around tombstones in bulk (Vacuum), and saves to a
// versioned, checksummed binary form that loads without rebuilding.
//
// Vectors are L2-normalised on the way in, so a score is the dot product,
// i.e. the cosine similarity. Nodes are identified by uint32 ids that the
// graph hands out; callers map them to their own keys. Ids of vacuumed
// nodes are reused by later Adds.
//
// A Graph is safe for concurrent use: any number of searches run together;
// writers (Add, Delete, Vacuum) take turns and hold searches off only while
// they change the data, which for Vacuum is the short last step. Given the
// same Config.Seed and the same sequence of calls, the graph is the same,
// byte for byte, whatever the number of CPUs.
package hnsw

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/viterin/vek/vek32"
)

// Config tunes a Graph. The zero value takes the defaults below.
type Config struct {
	// M is the number of links a node keeps on the upper layers; layer 0
	// keeps 2*M. Default 16.
	M int
	// EfConstruction is the candidate list length used while inserting.
	// Default 200.
	EfConstruction int
	// Ef is the default candidate list length of a search; a search never
	// uses fewer than k. Default 128.
	Ef int
	// Seed seeds the level generator, making builds reproducible.
	Seed uint64
	// VacuumRatio makes Delete repair the graph once tombstones exceed this
	// fraction of the nodes (and number at least 64). Default 0.1; a
	// negative value leaves vacuuming to the caller.
	VacuumRatio float64
}

func (c Config) withDefaults() Config {
	if c.M <= 0 {
		c.M = 16
	}
	if c.EfConstruction <= 0 {
		c.EfConstruction = 200
	}
	if c.Ef <= 0 {
		c.Ef = 128
	}
	if c.VacuumRatio == 0 {
		c.VacuumRatio = 0.1
	}
	return c
}

// Result is one neighbour found by a search.
type Result struct {
	ID    uint32
	Score float32 // cosine similarity, higher is closer
}

// ErrDims is returned when a vector's length differs from the graph's.
var ErrDims = errors.New("hnsw: wrong vector dimensions")

// Slot states. A tombstone is still linked (searches walk through it but
// never return it); a free slot is unlinked and waits to be reused.
const (
	live uint8 = iota
	tomb
	free
)

// maxLevels caps the layer count; with M=16 the chance of reaching it is
// 16^-15.
const maxLevels = 16

// Graph is an HNSW graph. Create one with New or Read.
type Graph struct {
	// wmu serialises writers. mu guards the data: searches hold it shared,
	// writers exclusively, except that Vacuum computes its repairs holding
	// only wmu, so that searches (which only read) go on meanwhile.
	wmu sync.Mutex
	mu  sync.RWMutex
	cfg Config
	dim int
	m0  int     // layer-0 link capacity, 2*M
	ml  float64 // level multiplier, 1/ln(M)

	pages  [][]float32 // vectors, pageSize slots per page
	state  []uint8     // per slot: live, tomb or free
	level  []uint8     // per slot: top layer
	links0 []uint32    // per slot, stride m0+1: count, then ids
	upper  [][]uint32  // per slot with level>0: per layer 1..level, stride M+1
	free   []uint32    // vacuumed slots, reused last-in first-out
	nTomb  int

	entry    uint32
	maxLevel int
	empty    bool // no linked node: entry is meaningless

	pcg *rand.PCG
	rng *rand.Rand

	pool sync.Pool // *searcher
}

// New returns an empty graph for vectors of dim dimensions.
func New(dim int, cfg Config) *Graph {
	cfg = cfg.withDefaults()
	g := &Graph{cfg: cfg, dim: dim, empty: true}
	g.init()
	g.pcg = rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15)
	g.rng = rand.New(g.pcg)
	return g
}

func (g *Graph) init() {
	g.m0 = 2 * g.cfg.M
	g.ml = 1 / math.Log(float64(g.cfg.M))
	g.pool.New = func() any { return new(searcher) }
}

// Dim returns the vector dimensions.
func (g *Graph) Dim() int { return g.dim }

// Config returns the graph's configuration, defaults filled in.
func (g *Graph) Config() Config { return g.cfg }

// Len returns the number of live (not deleted) nodes.
func (g *Graph) Len() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return len(g.state) - g.nTomb - len(g.free)
}

// Tombstones returns the number of deleted nodes not yet vacuumed.
func (g *Graph) Tombstones() int {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.nTomb
}

// Live reports whether id names a live node.
func (g *Graph) Live(id uint32) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return int(id) < len(g.state) && g.state[id] == live
}

// Vector returns a copy of the stored (normalised) vector of id, or nil if
// id is not live.
func (g *Graph) Vector(id uint32) []float32 {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if int(id) >= len(g.state) || g.state[id] != live {
		return nil
	}
	return slices.Clone(g.vec(id))
}

// Vectors live in fixed-size pages rather than one growing slice: growing
// a 200 MB slice would copy it and briefly hold it twice, and peak memory
// matters more here than one indirection.
const (
	pageShift = 10
	pageSize  = 1 << pageShift
)

func (g *Graph) vec(id uint32) []float32 {
	p := g.pages[id>>pageShift]
	i := int(id&(pageSize-1)) * g.dim
	return p[i : i+g.dim : i+g.dim]
}

// dist is the cosine distance of two normalised vectors.
func dist(a, b []float32) float32 { return 1 - vek32.Dot(a, b) }

// normalise copies v into dst scaled to unit length; a zero vector stays
// zero (it then scores 0 against everything).
func normalise(dst, v []float32) {
	n := vek32.Dot(v, v)
	if n == 0 {
		copy(dst, v)
		return
	}
	inv := float32(1 / math.Sqrt(float64(n)))
	for i, x := range v {
		dst[i] = x * inv
	}
}

func (g *Graph) links(id uint32, l int) []uint32 {
	if l == 0 {
		b := int(id) * (g.m0 + 1)
		return g.links0[b+1 : b+1+int(g.links0[b])]
	}
	s := g.upper[id]
	b := (l - 1) * (g.cfg.M + 1)
	return s[b+1 : b+1+int(s[b])]
}

func (g *Graph) setLinks(id uint32, l int, ids []uint32) {
	var dst []uint32
	if l == 0 {
		b := int(id) * (g.m0 + 1)
		dst = g.links0[b : b+g.m0+1]
	} else {
		b := (l - 1) * (g.cfg.M + 1)
		dst = g.upper[id][b : b+g.cfg.M+1]
	}
	// ids may alias dst[1:]; copy handles overlap.
	copy(dst[1:], ids)
	dst[0] = uint32(len(ids))
}

func (g *Graph) maxLinks(l int) int {
	if l == 0 {
		return g.m0
	}
	return g.cfg.M
}

func (g *Graph) randomLevel() int {
	u := 1 - g.rng.Float64() // (0, 1]
	l := int(-math.Log(u) * g.ml)
	return min(l, maxLevels-1)
}

// alloc returns a slot for a new node, reusing a vacuumed one if any.
func (g *Graph) alloc() uint32 {
	if n := len(g.free); n > 0 {
		id := g.free[n-1]
		g.free = g.free[:n-1]
		return id
	}
	id := uint32(len(g.state))
	g.state = append(g.state, free)
	g.level = append(g.level, 0)
	g.upper = append(g.upper, nil)
	if int(id>>pageShift) == len(g.pages) {
		g.pages = append(g.pages, make([]float32, pageSize*g.dim))
	}
	g.links0 = slices.Grow(g.links0, g.m0+1)[:len(g.links0)+g.m0+1]
	return id
}

// Add inserts vec (normalised on the way in) and returns its id.
func (g *Graph) Add(vec []float32) (uint32, error) {
	if len(vec) != g.dim {
		return 0, fmt.Errorf("add: %w: got %d, want %d", ErrDims, len(vec), g.dim)
	}
	g.wmu.Lock()
	defer g.wmu.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	id := g.alloc()
	q := g.vec(id)
	normalise(q, vec)
	level := g.randomLevel()
	g.state[id] = live
	g.level[id] = uint8(level)
	g.setLinks(id, 0, nil)
	if level > 0 {
		g.upper[id] = make([]uint32, level*(g.cfg.M+1))
	} else {
		g.upper[id] = nil
	}
	if g.empty {
		g.entry, g.maxLevel, g.empty = id, level, false
		return id, nil
	}
	g.link(id, level)
	if level > g.maxLevel {
		g.entry, g.maxLevel = id, level
	}
	return id, nil
}

// link connects the new node id on layers level..0. Callers hold the write
// lock and have set up id's link storage.
func (g *Graph) link(id uint32, level int) {
	s := g.pool.Get().(*searcher)
	defer g.pool.Put(s)
	q := g.vec(id)
	ep := cand{dist(q, g.vec(g.entry)), g.entry}
	for l := g.maxLevel; l > level; l-- {
		ep = g.greedy(q, ep, l)
	}
	eps := []cand{ep}
	for l := min(level, g.maxLevel); l >= 0; l-- {
		w := g.searchLayer(s, q, eps, g.cfg.EfConstruction, l, nil)
		// A node being relinked by Vacuum can meet itself via an in-link.
		w = slices.DeleteFunc(w, func(c cand) bool { return c.id == id })
		sel := g.heuristic(w, g.cfg.M, nil)
		ids := make([]uint32, len(sel))
		for i, c := range sel {
			ids[i] = c.id
		}
		g.setLinks(id, l, ids)
		for _, c := range sel {
			g.connect(c.id, id, c.d, l)
		}
		if len(w) > 0 {
			eps = append(eps[:0], w...) // w is scratch, reused by the next layer
		}
	}
}

// connect adds a link n -> id at layer l, pruning n's list with the
// heuristic when it is full.
func (g *Graph) connect(n, id uint32, d float32, l int) {
	lst := g.links(n, l)
	if slices.Contains(lst, id) {
		return
	}
	if len(lst) < g.maxLinks(l) {
		g.setLinks(n, l, append(lst, id)) // lst has spare capacity in place
		return
	}
	nv := g.vec(n)
	cs := make([]cand, 0, len(lst)+1)
	cs = append(cs, cand{d, id})
	for _, x := range lst {
		cs = append(cs, cand{dist(nv, g.vec(x)), x})
	}
	slices.SortFunc(cs, cmpCand)
	sel := g.heuristic(cs, g.maxLinks(l), nil)
	ids := make([]uint32, len(sel))
	for i, c := range sel {
		ids[i] = c.id
	}
	g.setLinks(n, l, ids)
}

// heuristic picks up to m neighbours from cs (sorted by distance to the
// base node, closest first), keeping a candidate only if it is closer to
// the base than to every neighbour already kept. This spreads links across
// directions, which is what keeps clustered data navigable. The result is
// appended to dst.
func (g *Graph) heuristic(cs []cand, m int, dst []cand) []cand {
	dst = dst[:0]
	for _, c := range cs {
		if len(dst) >= m {
			break
		}
		cv := g.vec(c.id)
		good := true
		for _, r := range dst {
			if dist(cv, g.vec(r.id)) < c.d {
				good = false
				break
			}
		}
		if good {
			dst = append(dst, c)
		}
	}
	return dst
}

// greedy walks layer l from ep to the closest node it can reach.
func (g *Graph) greedy(q []float32, ep cand, l int) cand {
	for changed := true; changed; {
		changed = false
		for _, x := range g.links(ep.id, l) {
			if d := dist(q, g.vec(x)); d < ep.d {
				ep, changed = cand{d, x}, true
			}
		}
	}
	return ep
}

// searchLayer is the ef-bounded best-first search of one layer. It keeps
// going until no candidate can improve a full result list: it does not
// stop at k. Nodes failing accept (and tombstones, when accept is non-nil)
// are walked through but not returned. The result is sorted closest first
// and lives in s until s is reused.
func (g *Graph) searchLayer(s *searcher, q []float32, eps []cand, ef, l int, accept func(uint32) bool) []cand {
	s.reset(len(g.state))
	for _, ep := range eps {
		s.vis.mark(ep.id)
		s.cands.push(ep)
		if accept == nil || accept(ep.id) {
			s.top.pushMax(ep)
		}
	}
	bound := float32(math.Inf(1))
	if len(s.top) > 0 {
		bound = s.top.maxD()
	}
	for len(s.cands) > 0 {
		c := s.cands.pop()
		if c.d > bound && len(s.top) >= ef {
			break
		}
		for _, x := range g.links(c.id, l) {
			if !s.vis.mark(x) {
				continue
			}
			d := dist(q, g.vec(x))
			if len(s.top) < ef || d < bound {
				s.cands.push(cand{d, x})
				if accept == nil || accept(x) {
					s.top.pushMax(cand{d, x})
					if len(s.top) > ef {
						s.top.popMax()
					}
				}
				if len(s.top) > 0 {
					bound = s.top.maxD()
				}
			}
		}
	}
	s.out = s.out[:0]
	for len(s.top) > 0 {
		s.out = append(s.out, s.top.popMax())
	}
	slices.Reverse(s.out)
	return s.out
}

// Search returns up to k live nodes closest to q for which accept (if not
// nil) returns true, best first. ef is the candidate list length; values
// below k are raised to max(k, Config.Ef). A very selective accept makes
// the search walk much of the graph; it still returns the right nodes.
func (g *Graph) Search(q []float32, k, ef int, accept func(uint32) bool) ([]Result, error) {
	if len(q) != g.dim {
		return nil, fmt.Errorf("search: %w: got %d, want %d", ErrDims, len(q), g.dim)
	}
	if k <= 0 {
		return nil, nil
	}
	if ef < k {
		ef = max(k, g.cfg.Ef)
	}
	qn := make([]float32, g.dim)
	normalise(qn, q)
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.empty {
		return nil, nil
	}
	ok := func(id uint32) bool { return g.state[id] == live && (accept == nil || accept(id)) }
	ep := cand{dist(qn, g.vec(g.entry)), g.entry}
	for l := g.maxLevel; l > 0; l-- {
		ep = g.greedy(qn, ep, l)
	}
	s := g.pool.Get().(*searcher)
	defer g.pool.Put(s)
	w := g.searchLayer(s, qn, []cand{ep}, ef, 0, ok)
	w = w[:min(k, len(w))]
	res := make([]Result, len(w))
	for i, c := range w {
		res[i] = Result{ID: c.id, Score: 1 - c.d}
	}
	return res, nil
}

// Exact returns the k live nodes closest to q for which accept (if not nil)
// returns true, by scanning every vector. It is the oracle the graph is
// tested against, and fast enough on its own for small collections.
func (g *Graph) Exact(q []float32, k int, accept func(uint32) bool) ([]Result, error) {
	if len(q) != g.dim {
		return nil, fmt.Errorf("exact: %w: got %d, want %d", ErrDims, len(q), g.dim)
	}
	if k <= 0 {
		return nil, nil
	}
	qn := make([]float32, g.dim)
	normalise(qn, q)
	g.mu.RLock()
	defer g.mu.RUnlock()
	var top heapq // max-heap on distance: the worst kept result on top
	for i, st := range g.state {
		id := uint32(i)
		if st != live || (accept != nil && !accept(id)) {
			continue
		}
		d := dist(qn, g.vec(id))
		if len(top) < k {
			top.pushMax(cand{d, id})
		} else if d < top.maxD() {
			top.popMax()
			top.pushMax(cand{d, id})
		}
	}
	res := make([]Result, len(top))
	for i := len(top) - 1; i >= 0; i-- {
		c := top.popMax()
		res[i] = Result{ID: c.id, Score: 1 - c.d}
	}
	return res, nil
}

// Delete marks id deleted: searches stop returning it at once, and its
// links are repaired by the next Vacuum, which Delete runs itself past
// Config.VacuumRatio. It reports whether id was live.
func (g *Graph) Delete(id uint32) bool {
	g.wmu.Lock()
	defer g.wmu.Unlock()
	g.mu.Lock()
	if int(id) >= len(g.state) || g.state[id] != live {
		g.mu.Unlock()
		return false
	}
	g.state[id] = tomb
	g.nTomb++
	due := g.vacuumDue()
	g.mu.Unlock()
	if due {
		g.vacuum()
	}
	return true
}

// NeedsVacuum reports whether tombstones exceed Config.VacuumRatio (and
// number at least 64), for callers that vacuum at a time of their choosing.
func (g *Graph) NeedsVacuum() bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.vacuumDue()
}

func (g *Graph) vacuumDue() bool {
	r := g.cfg.VacuumRatio
	return r > 0 && g.nTomb >= 64 && float64(g.nTomb) > r*float64(len(g.state)-len(g.free))
}
