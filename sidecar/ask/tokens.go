package ask

import (
	"sync"

	"github.com/quire-app/quire/sidecar/markdown"
)

// Token counting for budgets is cl100k, the tokenizer the chunker cuts
// passages with. Encoding is slow (about 5 MB/s, a millisecond for a
// passage), and an ask counts some twenty passages, so counts are summed
// over pieces and the pieces' counts remembered: cl100k's pre-tokenizer
// never joins text across a space that precedes a non-space (the space
// starts the next piece), so the text's count is the sum of its pieces'.

// maxCached bounds the memo; past it, pieces are counted but not kept.
const maxCached = 1 << 18

var tok struct {
	mu   sync.RWMutex
	memo map[string]int
}

func countTokens(s string) int {
	n := 0
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] == ' ' && i+1 < len(s) && !isSpaceByte(s[i+1]) {
			n += countPiece(s[start:i])
			start = i
		}
	}
	return n + countPiece(s[start:])
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
}

func countPiece(p string) int {
	if p == "" {
		return 0
	}
	tok.mu.RLock()
	n, ok := tok.memo[p]
	tok.mu.RUnlock()
	if ok {
		return n
	}
	n = markdown.CountTokens(p) // invalid UTF-8 counts as bytes, an upper bound
	tok.mu.Lock()
	if tok.memo == nil {
		tok.memo = map[string]int{}
	}
	if len(tok.memo) < maxCached {
		tok.memo[p] = n
	}
	tok.mu.Unlock()
	return n
}
