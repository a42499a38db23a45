package markdown

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Tokenizer counts tokens and reports where each token starts. The
// default is OpenAI's cl100k, close to what current embedders and chat
// models see, and fully offline.
type Tokenizer interface {
	// Offsets returns the byte offset of every token in s, in order.
	Offsets(s string) []int
}

type cl100k struct{ codec tokenizer.Codec }

var (
	defaultTok     Tokenizer
	defaultTokOnce sync.Once
)

// CL100K returns the shared cl100k tokenizer.
func CL100K() Tokenizer {
	defaultTokOnce.Do(func() {
		c, err := tokenizer.Get(tokenizer.Cl100kBase)
		if err != nil {
			panic("cl100k tokenizer: " + err.Error()) // the vocabulary is compiled in
		}
		defaultTok = cl100k{c}
	})
	return defaultTok
}

func (t cl100k) Offsets(s string) []int {
	_, toks, err := t.codec.Encode(s)
	if err != nil {
		// Only invalid UTF-8 fails; notes are checked before they get here.
		return nil
	}
	offs := make([]int, len(toks))
	o := 0
	for i, tk := range toks {
		offs[i] = o
		o += len(tk)
	}
	return offs
}

// CountTokens counts cl100k tokens in s.
func CountTokens(s string) int { return len(CL100K().Offsets(s)) }
