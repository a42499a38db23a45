package markdown

import (
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/quire-app/quire/sidecar/internal/memo"
)

// Tokenizer counts tokens and reports where each token starts. The
// default is OpenAI's cl100k, close to what current embedders and chat
// models see, and fully offline.
type Tokenizer interface {
	// Offsets returns the byte offset of every token in s, in order.
	Offsets(s string) []int
}

// cl100k is the one cl100k codec of the process: the chunker and ask's
// budgets share it. Only this vocabulary is linked in (the tokenizer
// package's Get would link every OpenAI vocabulary, some 6 MB).
type cl100k struct {
	codec *codec.Codec
	// pieces maps a piece of at most pieceCacheLen bytes to the lengths
	// of its tokens, one byte each.
	pieces *memo.Table[string]
}

var (
	defaultTok     Tokenizer
	defaultTokOnce sync.Once
)

// CL100K returns the shared cl100k tokenizer.
func CL100K() Tokenizer {
	defaultTokOnce.Do(func() {
		defaultTok = cl100k{codec: codec.NewCl100kBase(), pieces: memo.New[string](pieceSlots)}
	})
	return defaultTok
}

func (t cl100k) Offsets(s string) []int {
	if !utf8.ValidString(s) {
		// Notes are checked before they get here; the codec reads
		// invalid bytes as U+FFFD, three bytes each.
		return offsetsOf(t.encode(s))
	}
	offs := make([]int, 0, len(s)/4+1)
	pos := 0 // where the next token starts, DELs left out (see pieces)
	for i := skipDel(s, 0); i < len(s); i = skipDel(s, i) {
		p := s[i : i+pieceLen(s[i:])]
		i += len(p)
		if len(p) > pieceCacheLen {
			for _, tk := range t.encode(p) {
				offs = append(offs, pos)
				pos += len(tk)
			}
			continue
		}
		for _, l := range []byte(t.pieces.Get(p, t.splitLengths)) {
			offs = append(offs, pos)
			pos += int(l)
		}
	}
	return offs
}

// encode is the codec's split of s into tokens.
func (t cl100k) encode(s string) []string {
	_, toks, _ := t.codec.Encode(s) // no error in the codec's default mode
	return toks
}

// splitLengths is the lengths of the tokens piece becomes, one byte each.
func (t cl100k) splitLengths(piece string) string {
	toks := t.encode(piece)
	b := make([]byte, len(toks))
	for i, tk := range toks {
		b[i] = byte(len(tk)) // at most pieceCacheLen
	}
	return string(b)
}

// offsetsOf is where each of toks starts in their concatenation.
func offsetsOf(toks []string) []int {
	offs := make([]int, len(toks))
	o := 0
	for i, tk := range toks {
		offs[i] = o
		o += len(tk)
	}
	return offs
}

// CountTokens counts cl100k tokens in s: exactly up to exactLimit bytes,
// else estimated.
func CountTokens(s string) int {
	if len(s) > exactLimit {
		return len(estimateOffsets(s))
	}
	return len(CL100K().Offsets(s))
}

// exactLimit is the longest text counted with the real tokenizer. cl100k's
// cost grows badly on pathological text (a megabyte of list markers took
// seconds and hundreds of MB, issue 13), and past this size a count only
// sizes windows, so an estimate serves: linear, with no allocation but
// the offsets.
const exactLimit = 64 << 10

// estimateAbove is the note size past which every count is estimated:
// cl100k's fixed cost per call made 100k tiny headings cost a gigabyte of
// garbage. Notes that large are rare, and their passages are sized within
// about a third of the exact count (TestEstimateNearCL100K).
const estimateAbove = 256 << 10

// estimate is the Tokenizer of estimateOffsets.
type estimate struct{}

func (estimate) Offsets(s string) []int { return estimateOffsets(s) }

// offsets counts tokens in s: exactly up to exactLimit bytes, else
// estimated.
func (c *Chunker) offsets(s string) []int {
	if len(s) > exactLimit {
		return estimateOffsets(s)
	}
	return c.Tok.Offsets(s)
}

// estimateOffsets approximates where cl100k's tokens start: a word with
// the space before it is one token per 8 bytes, digits go by three, every
// other mark is a token with the space before it, and a run of spaces is
// one token.
func estimateOffsets(s string) []int {
	offs := make([]int, 0, len(s)/4+1)
	class := func(b byte) int {
		switch {
		case b == ' ' || b == '\t' || b == '\n' || b == '\r':
			return 0
		case b >= '0' && b <= '9':
			return 2
		case b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80 || b == '_':
			return 1
		}
		return 3
	}
	run := 0 // bytes in the current token
	for i := 0; i < len(s); i++ {
		cl := class(s[i])
		start := i == 0
		if !start {
			prev := class(s[i-1])
			switch {
			case cl == 0:
				start = prev != 0
			case prev == 0:
				// A single space joins what follows it.
				start = i < 2 || class(s[i-2]) == 0
			case cl == 3:
				start = true
			case cl != prev:
				start = true
			case cl == 1 && run >= 8, cl == 2 && run >= 3:
				start = true
			}
		}
		if start {
			offs = append(offs, i)
			run = 0
		}
		run++
	}
	return offs
}
