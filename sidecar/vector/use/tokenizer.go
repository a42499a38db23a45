package use

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"
)

// reservedPieces are the first vocabulary entries (unknown, <s>, </s> and
// three spares) that the reference tokenizer never matches against text.
const reservedPieces = 6

// unknownID is the id of the "unknown" piece, emitted for a character no
// piece starts with; consecutive unknowns collapse into one.
const unknownID = 0

// separator replaces spaces and starts the text, as in SentencePiece.
const separator = '\u2581'

// tokenizer is a port of the reference's SentencePiece-style encoder
// (@energetic-ai/embeddings lib/tokenizer.ts): a Viterbi search over a trie
// of scored pieces. It reproduces the reference's quirks on purpose (ties go
// to the later start, a path score of exactly 0 counts as unset, and the
// back-trace steps by a piece's UTF-16 length), because parity of ids is
// what makes the vectors match.
type tokenizer struct {
	nodes   []trieNode
	edges   []edge  // children of node i: edges[first:first+count], by rune
	tables  []int32 // dense child tables of busy nodes, tableRunes each
	utf16   []int   // UTF-16 length of each piece, for the back-trace
	nPieces int
}

type trieNode struct {
	children map[rune]int32 // while building; edges after
	first    int32
	count    int32
	table    int32 // offset into tables, or -1
	end      bool
	score    float64
	id       int32
}

type edge struct {
	r    rune
	next int32
}

const (
	// tableRunes is the rune range a busy node indexes directly: Latin,
	// Greek, Cyrillic and more, 8 KiB per table.
	tableRunes = 0x800
	// busyNode is the child count from which a node gets a table; only
	// the root and the separator's node have thousands.
	busyNode = 64
)

// child returns the node under n for rune r, or -1. Busy nodes look r up
// in a table; the rest scan or binary search their sorted edges.
func (t *tokenizer) child(n int32, r rune) int32 {
	nd := &t.nodes[n]
	if nd.table >= 0 && uint32(r) < tableRunes {
		return t.tables[int(nd.table)+int(r)]
	}
	es := t.edges[nd.first : nd.first+nd.count]
	if len(es) <= 8 {
		for _, e := range es {
			if e.r == r {
				return e.next
			}
		}
		return -1
	}
	lo, hi := 0, len(es)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if es[m].r < r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(es) && es[lo].r == r {
		return es[lo].next
	}
	return -1
}

// freeze turns the build-time child maps into sorted edge lists.
func (t *tokenizer) freeze() {
	for i := range t.nodes {
		nd := &t.nodes[i]
		nd.first = int32(len(t.edges))
		for r, next := range nd.children {
			t.edges = append(t.edges, edge{r, next})
		}
		es := t.edges[nd.first:]
		slices.SortFunc(es, func(a, b edge) int { return cmp.Compare(a.r, b.r) })
		nd.count = int32(len(es))
		nd.children = nil
		nd.table = -1
		if len(es) >= busyNode {
			nd.table = int32(len(t.tables))
			tab := make([]int32, tableRunes)
			for j := range tab {
				tab[j] = -1
			}
			for _, e := range es {
				if e.r < tableRunes {
					tab[e.r] = e.next
				}
			}
			t.tables = append(t.tables, tab...)
		}
	}
}

func newTokenizer(vocab [][2]any) (*tokenizer, error) {
	t := &tokenizer{nodes: []trieNode{{}}, utf16: make([]int, len(vocab)), nPieces: len(vocab)}
	for i, e := range vocab {
		piece, ok := e[0].(string)
		if !ok {
			return nil, fmt.Errorf("vocab entry %d: piece is %T", i, e[0])
		}
		var score float64
		switch s := e[1].(type) {
		case float64:
			score = s
		case nil:
			// The reference adds null, which JavaScript reads as 0.
		default:
			return nil, fmt.Errorf("vocab entry %d: score is %T", i, e[1])
		}
		t.utf16[i] = utf16Len(piece)
		if i >= reservedPieces {
			t.insert(piece, score, int32(i))
		}
	}
	t.freeze()
	return t, nil
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

func (t *tokenizer) insert(piece string, score float64, id int32) {
	n := int32(0)
	for _, r := range piece {
		if t.nodes[n].children == nil {
			t.nodes[n].children = make(map[rune]int32)
		}
		next, ok := t.nodes[n].children[r]
		if !ok {
			next = int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{})
			t.nodes[n].children[r] = next
		}
		n = next
	}
	// A duplicate piece overwrites the earlier one, as in the reference.
	t.nodes[n].end = true
	t.nodes[n].score = score
	t.nodes[n].id = id
}

// prepare applies the reference's input processing: NFKC, then every space
// becomes the separator and a separator starts non-empty text.
func prepare(text string) []rune {
	s := norm.NFKC.String(text)
	if s == "" {
		return nil
	}
	s = string(separator) + strings.ReplaceAll(s, " ", string(separator))
	return []rune(s)
}

// encode returns the piece ids of text exactly as the reference does.
func (t *tokenizer) encode(text string) []int32 {
	syms := prepare(text)
	if len(syms) == 0 {
		return []int32{}
	}
	n := len(syms)
	// The reference builds the whole lattice and then relaxes it by end
	// position, starts in ascending order. Relaxing each start's arcs as
	// the trie finds them visits every end's arcs in that same order, and
	// best[i] is final when start i is reached, so no lattice is stored.
	best := make([]float64, n+1)
	words := make([]int32, n+1)
	relax := func(start, end int, score float64, id int32) {
		s := score + best[start]
		if best[end] == 0 || s >= best[end] {
			best[end] = s
			words[end] = id
		}
	}
	for i := 0; i < n; i++ {
		found := false
		node := int32(0)
		for j := i; j < n; j++ {
			next := t.child(node, syms[j])
			if next < 0 {
				break
			}
			node = next
			if nd := &t.nodes[node]; nd.end {
				relax(i, j+1, nd.score, nd.id)
				found = true
			}
		}
		if !found {
			relax(i, i+1, 0, unknownID)
		}
	}
	var rev []int32
	for i := n; i > 0; i -= t.utf16[words[i]] {
		rev = append(rev, words[i])
	}
	out := make([]int32, 0, len(rev))
	prevUnknown := false
	for _, id := range rev {
		if !(prevUnknown && id == unknownID) {
			out = append(out, id)
		}
		prevUnknown = id == unknownID
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
