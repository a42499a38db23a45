// Package memo remembers the results of a pure function of short strings
// (a word's stem, a piece's tokens) in a table of fixed size that every
// goroutine reads and writes without locks: a vault repeats its words
// millions of times, and the work per word is then one hash and one
// comparison. A key that lands on a taken slot takes it; the table never
// grows.
package memo

import (
	"hash/maphash"
	"strings"
	"sync/atomic"
)

// Table maps keys to the values f gave for them.
type Table[V any] struct {
	seed  maphash.Seed
	slots []atomic.Pointer[entry[V]]
}

type entry[V any] struct {
	key string
	val V
}

// New returns a table of the given number of slots.
func New[V any](slots int) *Table[V] {
	return &Table[V]{seed: maphash.MakeSeed(), slots: make([]atomic.Pointer[entry[V]], slots)}
}

// Get returns f(key), remembered. f must be pure: every call with the same
// key gives the same value.
func (t *Table[V]) Get(key string, f func(string) V) V {
	slot := &t.slots[maphash.String(t.seed, key)%uint64(len(t.slots))]
	if e := slot.Load(); e != nil && e.key == key {
		return e.val
	}
	e := &entry[V]{key: strings.Clone(key), val: f(key)} // key may be cut from a whole note
	slot.Store(e)
	return e.val
}

// GetBytes is Get for a key held in bytes (a Bleve token), copied only
// when f is called.
func (t *Table[V]) GetBytes(key []byte, f func(string) V) V {
	slot := &t.slots[maphash.Bytes(t.seed, key)%uint64(len(t.slots))]
	if e := slot.Load(); e != nil && e.key == string(key) {
		return e.val
	}
	k := string(key)
	e := &entry[V]{key: k, val: f(k)}
	slot.Store(e)
	return e.val
}
