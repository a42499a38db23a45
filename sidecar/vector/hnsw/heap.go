package hnsw

import "cmp"

// cand is a node and its distance to the point being searched for.
type cand struct {
	d  float32
	id uint32
}

func cmpCand(a, b cand) int {
	if c := cmp.Compare(a.d, b.d); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// heapq is a binary heap of candidates, hand-rolled because container/heap
// boxes every element in an interface and this is the hot loop. push/pop
// keep the closest on top; pushMax/popMax/maxD keep the farthest on top
// (a heap is only ever used one way).
type heapq []cand

func (h *heapq) push(c cand) {
	*h = append(*h, c)
	h.up(len(*h)-1, false)
}

func (h *heapq) pop() cand { return h.popWith(false) }

func (h *heapq) pushMax(c cand) {
	*h = append(*h, c)
	h.up(len(*h)-1, true)
}

func (h *heapq) popMax() cand { return h.popWith(true) }

func (h heapq) maxD() float32 { return h[0].d }

// before reports whether a belongs above b.
func before(a, b cand, max bool) bool {
	if max {
		return a.d > b.d || (a.d == b.d && a.id > b.id)
	}
	return a.d < b.d || (a.d == b.d && a.id < b.id)
}

func (h heapq) up(i int, max bool) {
	for i > 0 {
		p := (i - 1) / 2
		if !before(h[i], h[p], max) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (h *heapq) popWith(max bool) cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && before(s[c+1], s[c], max) {
			c++
		}
		if !before(s[c], s[i], max) {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	*h = s
	return top
}

// visited marks nodes seen by one search. Clearing is O(1): a new search
// bumps the generation instead of zeroing the marks.
type visited struct {
	marks []uint16
	gen   uint16
}

func (v *visited) reset(n int) {
	if len(v.marks) < n {
		v.marks = make([]uint16, n+n/4)
		v.gen = 0
	}
	v.gen++
	if v.gen == 0 {
		clear(v.marks)
		v.gen = 1
	}
}

// mark marks id and reports whether it was unmarked.
func (v *visited) mark(id uint32) bool {
	if v.marks[id] == v.gen {
		return false
	}
	v.marks[id] = v.gen
	return true
}

// searcher is the scratch space of one search, pooled so that a query
// allocates almost nothing.
type searcher struct {
	vis   visited
	cands heapq
	top   heapq
	out   []cand
}

func (s *searcher) reset(n int) {
	s.vis.reset(n)
	s.cands = s.cands[:0]
	s.top = s.top[:0]
}
