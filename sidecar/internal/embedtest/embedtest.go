// Package embedtest is a dense model for tests: a hashed bag of words,
// normalised, so texts that share words are close and the same text
// always gets the same vector. It needs no model server, and can be made
// slow (Gate) or down (Down), and counted (Calls, Texts).
package embedtest

import (
	"context"
	"errors"
	"hash/fnv"
	"math"
	"strings"
	"sync/atomic"
)

// Defaults for the zero Bag.
const (
	DefaultName   = "bag-test"
	DefaultDims   = 64
	DefaultWindow = 512
)

// ErrDown is what Embed returns while Down is set: what a client sees of
// an Ollama server that went away.
var ErrDown = errors.New("connection refused")

// Bag is the embedder (index.Embedder). Its tokens are words. Set the
// fields before the first Embed; use it by pointer.
type Bag struct {
	// Model is its name (Name); DefaultName when empty.
	Model string
	// Size is the vectors' length (Dims); DefaultDims when 0.
	Size int
	// Window is how many tokens it embeds at once (MaxTokens);
	// DefaultWindow when 0.
	Window int
	// Gate, when not nil, blocks each Embed call until it is closed or
	// the call's context ends.
	Gate chan struct{}
	// Down makes Embed fail with ErrDown.
	Down atomic.Bool
	// Calls and Texts count the Embed calls that embedded and the texts
	// they were given.
	Calls, Texts atomic.Int64
}

// Name is the model's name.
func (b *Bag) Name() string {
	if b.Model == "" {
		return DefaultName
	}
	return b.Model
}

// Dims is the vectors' length.
func (b *Bag) Dims() int {
	if b.Size == 0 {
		return DefaultDims
	}
	return b.Size
}

// MaxTokens is the window in words.
func (b *Bag) MaxTokens() int {
	if b.Window == 0 {
		return DefaultWindow
	}
	return b.Window
}

// CountTokens counts words.
func (b *Bag) CountTokens(text string) int { return len(strings.Fields(text)) }

// Embed hashes each text's lowercased words, trimmed of punctuation, into
// a vector of Dims and normalises it (an empty text stays zero).
func (b *Bag) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if b.Gate != nil {
		select {
		case <-b.Gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if b.Down.Load() {
		return nil, ErrDown
	}
	b.Calls.Add(1)
	b.Texts.Add(int64(len(texts)))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, b.Dims())
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := fnv.New32a()
			h.Write([]byte(strings.Trim(w, ".,:;#›")))
			v[h.Sum32()%uint32(len(v))]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			for j := range v {
				v[j] /= float32(math.Sqrt(n))
			}
		}
		out[i] = v
	}
	return out, nil
}

// Held is a Bag that lets Batches calls of several texts (batches of
// passages) through and holds the next ones until Release is closed or
// their context ends; a call of one text (a query) always goes through.
// A test looks at an embedding stopped half way with it.
type Held struct {
	Bag
	Batches atomic.Int64
	Release chan struct{}
}

// NewHeld returns a Held that lets batches through until Batches is set.
func NewHeld() *Held {
	h := &Held{Release: make(chan struct{})}
	h.Batches.Store(math.MaxInt64)
	return h
}

// Embed is Bag's, after the wait for a held batch.
func (h *Held) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) > 1 && h.Batches.Add(-1) < 0 {
		select {
		case <-h.Release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return h.Bag.Embed(ctx, texts)
}
