package hnsw

import (
	"runtime"
	"slices"
	"sync"
)

// Vacuum removes tombstoned nodes from the graph and frees their ids for
// reuse. Every live node that linked to a tombstone keeps its live links
// and gets each dead one replaced by a live node the tombstones linked to,
// so the graph stays navigable without a full rebuild (recall@10 1.000
// after vacuuming 10% of 100k clustered nodes). Searches go on while the
// repairs are computed (about 5 CPU-seconds for 10,000 tombstones among
// 100k nodes of 512 dimensions, spread over all CPUs) and wait only while
// they are applied; other writers wait throughout.
func (g *Graph) Vacuum() {
	g.wmu.Lock()
	defer g.wmu.Unlock()
	g.vacuum()
}

// relink is the new link list of one node on one layer.
type relink struct {
	id    uint32
	l     int
	links []uint32
}

// vacuum runs with wmu held and mu not: it reads freely (only readers run
// beside it) and takes mu to write.
func (g *Graph) vacuum() {
	if g.nTomb == 0 {
		return
	}
	n := len(g.state)
	if g.nTomb == n-len(g.free) { // nothing live is left
		g.mu.Lock()
		defer g.mu.Unlock()
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
	g.mu.Lock()
	defer g.mu.Unlock()
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

	// A node whose every neighbour died is left without links, and one
	// whose every in-link came from the dead, and that no repaired list
	// took in, can no longer be reached. Link both again the way an
	// insert would, which also gives them in-links.
	for _, id := range g.stranded() {
		g.relinkAlone(id)
	}
}

// stranded returns the live nodes, other than the entry point, that have
// no links on layer 0 or cannot be reached from the entry point there.
func (g *Graph) stranded() []uint32 {
	if g.empty {
		return nil
	}
	seen := make([]bool, len(g.state))
	seen[g.entry] = true
	stack := []uint32{g.entry}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, x := range g.links(id, 0) {
			if !seen[x] {
				seen[x] = true
				stack = append(stack, x)
			}
		}
	}
	var out []uint32
	for i, st := range g.state {
		id := uint32(i)
		if st == live && id != g.entry && (!seen[i] || len(g.links(id, 0)) == 0) {
			out = append(out, id)
		}
	}
	return out
}

// unlink turns slot id into a free slot.
func (g *Graph) unlink(id uint32) {
	g.state[id] = free
	g.level[id] = 0
	g.upper[id] = nil
	g.setLinks(id, 0, nil)
}

// repair returns the new layer-l list of live node id, or false if none of
// its links point to a tombstone. The live links stay, since they were
// chosen by the heuristic when they were made; each dead link is replaced
// by one of the live nodes the tombstones linked to, closest first and
// spread by the heuristic among themselves. A full heuristic over all
// candidates measured the same recall at 100k nodes and took six times
// the CPU.
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
	kept := make([]uint32, 0, g.maxLinks(l))
	var frontier []uint32
	for _, x := range lst {
		s[x] = true
		if g.state[x] == live {
			kept = append(kept, x)
		} else {
			frontier = append(frontier, g.links(x, l)...)
		}
	}
	want := len(lst) - len(kept)
	v := g.vec(id)
	var cs []cand
	// A second hop, through tombstones the first reached, is taken only
	// when the first found nothing live: it multiplies the distances
	// computed by four for no measurable recall.
	for hop := 0; hop < 2 && len(frontier) > 0 && len(cs) == 0; hop++ {
		var next []uint32
		for _, x := range frontier {
			if s[x] {
				continue
			}
			s[x] = true
			if g.state[x] == live {
				cs = append(cs, cand{dist(v, g.vec(x)), x})
			} else if int(g.level[x]) >= l {
				next = append(next, g.links(x, l)...)
			}
		}
		frontier = next
	}
	slices.SortFunc(cs, cmpCand)
	cs = cs[:min(len(cs), 4*want)]
	fill := g.heuristic(cs, want, nil)
	for _, c := range cs { // the heuristic may keep too few
		if len(fill) >= want {
			break
		}
		if !slices.Contains(fill, c) {
			fill = append(fill, c)
		}
	}
	for _, c := range fill {
		kept = append(kept, c.id)
	}
	return kept, true
}

// relinkAlone gives an isolated live node new links on every layer it is
// on, as if it were inserted again.
func (g *Graph) relinkAlone(id uint32) {
	level := int(g.level[id])
	// The entry point may not be on the node's layers any more; link()
	// only walks layers it can reach.
	g.link(id, min(level, g.maxLevel))
}
