package hnsw

import (
	"runtime"
	"slices"
	"sync"
)

// Vacuum removes tombstoned nodes from the graph and frees their ids for
// reuse. Every live node that linked to a tombstone gets its list rebuilt
// from its live links plus the live nodes the tombstones linked to (the
// repair hnswlib uses for updates), so the graph stays navigable without a
// full rebuild. It holds the write lock; the work is spread over all CPUs.
func (g *Graph) Vacuum() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.vacuum()
}

// relink is the new link list of one node on one layer.
type relink struct {
	id    uint32
	l     int
	links []uint32
}

func (g *Graph) vacuum() {
	if g.nTomb == 0 {
		return
	}
	n := len(g.state)
	if g.nTomb == n-len(g.free) { // nothing live is left
		for i := range g.state {
			g.unlink(uint32(i))
		}
		g.free = g.free[:0]
		for i := n - 1; i >= 0; i-- {
			g.free = append(g.free, uint32(i))
		}
		g.nTomb, g.empty, g.maxLevel = 0, true, 0
		return
	}

	// Compute every new list against the unchanged graph, then apply: the
	// workers only read, so they need no locking among themselves.
	workers := runtime.GOMAXPROCS(0)
	out := make([][]relink, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var seen map[uint32]bool
			for i := w; i < n; i += workers {
				id := uint32(i)
				if g.state[id] != live {
					continue
				}
				for l := 0; l <= int(g.level[id]); l++ {
					if lst, ok := g.repair(id, l, &seen); ok {
						out[w] = append(out[w], relink{id, l, lst})
					}
				}
			}
		}()
	}
	wg.Wait()
	for _, rs := range out {
		for _, r := range rs {
			g.setLinks(r.id, r.l, r.links)
		}
	}

	for i := range g.state {
		if g.state[i] == tomb {
			g.unlink(uint32(i))
			g.free = append(g.free, uint32(i))
		}
	}
	g.nTomb = 0
	if g.state[g.entry] != live {
		best := -1
		for i, st := range g.state {
			if st == live && (best < 0 || g.level[i] > g.level[best]) {
				best = i
			}
		}
		g.entry, g.maxLevel = uint32(best), int(g.level[best])
	}

	// A node whose every neighbour died is left without links; give it
	// fresh ones the way an insert would.
	for i, st := range g.state {
		if st == live && len(g.links(uint32(i), 0)) == 0 && g.entry != uint32(i) {
			g.relinkAlone(uint32(i))
		}
	}
}

// unlink turns slot id into a free slot.
func (g *Graph) unlink(id uint32) {
	g.state[id] = free
	g.level[id] = 0
	g.upper[id] = nil
	g.setLinks(id, 0, nil)
}

// repair returns the new layer-l list of live node id, or false if none of
// its links point to a tombstone.
func (g *Graph) repair(id uint32, l int, seen *map[uint32]bool) ([]uint32, bool) {
	lst := g.links(id, l)
	if !slices.ContainsFunc(lst, func(x uint32) bool { return g.state[x] != live }) {
		return nil, false
	}
	if *seen == nil {
		*seen = make(map[uint32]bool)
	}
	clear(*seen)
	s := *seen
	s[id] = true
	v := g.vec(id)
	var cs []cand
	// Walk through tombstones (up to two hops) to the live nodes beyond.
	frontier := lst
	for hop := 0; hop < 3 && len(frontier) > 0; hop++ {
		var next []uint32
		for _, x := range frontier {
			if s[x] {
				continue
			}
			s[x] = true
			if g.state[x] == live {
				cs = append(cs, cand{dist(v, g.vec(x)), x})
			} else if hop < 2 && int(g.level[x]) >= l {
				next = append(next, g.links(x, l)...)
			}
		}
		frontier = next
	}
	slices.SortFunc(cs, cmpCand)
	// The heuristic costs candidates × kept distances; beyond a few times
	// the list length the far candidates are never kept anyway.
	cs = cs[:min(len(cs), 3*g.maxLinks(l))]
	sel := g.heuristic(cs, g.maxLinks(l), nil)
	ids := make([]uint32, len(sel))
	for i, c := range sel {
		ids[i] = c.id
	}
	return ids, true
}

// relinkAlone gives an isolated live node new links on every layer it is
// on, as if it were inserted again.
func (g *Graph) relinkAlone(id uint32) {
	level := int(g.level[id])
	// The entry point may not be on the node's layers any more; link()
	// only walks layers it can reach.
	g.link(id, min(level, g.maxLevel))
}
