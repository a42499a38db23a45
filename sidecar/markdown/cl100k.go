package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// cl100k's encoder first cuts text into pieces with a regular expression
// and then merges each piece's bytes into tokens on its own: a token never
// crosses two pieces, and a piece always becomes the same tokens. The
// codec runs that expression with a backtracking engine and merges every
// piece anew, which took a fifth of a cold keyword index (issue 30).
// cl100k.Offsets cuts text as the expression does, by hand (pieceLen),
// and a memo.Table remembers how each short piece splits; the codec
// still decides every split (TestFastCL100KMatchesCodec checks both
// against it, and TestPassagesAsWithTheCodec the passages).

// skipDel returns the first offset from i that is not a DEL, where the
// next piece starts.
func skipDel(s string, i int) int {
	for i < len(s) && s[i] == del {
		i++
	}
	return i
}

// runeClass is how the expression sees a character.
type runeClass uint8

const (
	classOther  runeClass = iota // none of the below
	classLetter                  // \p{L}
	classNumber                  // \p{N}
	classSpace                   // \s but not a line end
	classLine                    // \r or \n
	classNone                    // DEL, which the engine puts in no class
)

const del = 0x7f

// asciiClass classifies the first 128 characters without a table lookup.
var asciiClass = func() (t [utf8.RuneSelf]runeClass) {
	for c := range t {
		t[c] = classOf(rune(c))
	}
	return t
}()

func classOf(r rune) runeClass {
	switch {
	case r == del:
		return classNone
	case r == '\r' || r == '\n':
		return classLine
	case unicode.IsLetter(r):
		return classLetter
	case unicode.IsNumber(r):
		return classNumber
	case unicode.IsSpace(r):
		return classSpace
	}
	return classOther
}

// at returns the class and size of the character that starts s.
func at(s string) (runeClass, int) {
	if c := s[0]; c < utf8.RuneSelf {
		return asciiClass[c], 1
	}
	r, n := utf8.DecodeRuneInString(s)
	return classOf(r), n
}

// pieceLen is the length of the piece that starts s (not empty), as
// cl100k's expression cuts it, taking its alternatives in order:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// with the codec's classes: \s is unicode.IsSpace, \p{L} a letter and
// \p{N} a number. s must be valid UTF-8 and not start with a DEL: the
// codec's engine matches U+007F with no class, so it is in no piece and
// becomes no token (skipDel), and the offsets after it are those of the
// text without it, as they always were.
func pieceLen(s string) int {
	c, n := at(s)
	// 's 't 're 've 'm 'll 'd, any case (the engine's cases: ſ is an s).
	if s[0] == '\'' && len(s) > 1 {
		if strings.HasPrefix(s[1:], "ſ") {
			return 1 + len("ſ")
		}
		switch s[1] {
		case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D':
			return 2
		case 'r', 'R', 'v', 'V':
			if len(s) > 2 && (s[2] == 'e' || s[2] == 'E') {
				return 3
			}
		case 'l', 'L':
			if len(s) > 2 && (s[2] == 'l' || s[2] == 'L') {
				return 3
			}
		}
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if c == classLetter {
		return n + letters(s[n:])
	}
	if c == classOther || c == classSpace {
		if n < len(s) {
			if c2, _ := at(s[n:]); c2 == classLetter {
				return n + letters(s[n:])
			}
		}
	}
	// \p{N}{1,3}
	if c == classNumber {
		i := n
		for k := 1; k < 3 && i < len(s); k++ {
			c2, n2 := at(s[i:])
			if c2 != classNumber {
				break
			}
			i += n2
		}
		return i
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	if c == classOther || s[0] == ' ' && len(s) > 1 {
		i := 0
		if s[0] == ' ' {
			i = 1
		}
		start := i
		for i < len(s) {
			c2, n2 := at(s[i:])
			if c2 != classOther {
				break
			}
			i += n2
		}
		if i > start {
			for i < len(s) && (s[i] == '\r' || s[i] == '\n') {
				i++
			}
			return i
		}
	}
	// What is left starts with white space. \s*[\r\n]+ as the codec's
	// engine runs it: the spaces up to the first line end in the run and
	// the line ends that follow it, not up to the last line end.
	end := 0
	for end < len(s) {
		c2, n2 := at(s[end:])
		if c2 == classLine {
			for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
				end++
			}
			return end
		}
		if c2 != classSpace {
			break
		}
		end += n2
	}
	// \s+(?!\S): the run, all of it at the end of the text, else all
	// but its last character; \s+: a run of one.
	if end < len(s) {
		if _, last := utf8.DecodeLastRuneInString(s[:end]); last < end {
			return end - last
		}
	}
	return end
}

// letters is the length of the run of letters that starts s.
func letters(s string) int {
	i := 0
	for i < len(s) {
		c, n := at(s[i:])
		if c != classLetter {
			break
		}
		i += n
	}
	return i
}

// pieceSlots is the size of cl100k's table of pieces: a vault's common
// words each keep a slot. Some 5 MB when full.
const (
	pieceSlots    = 1 << 16
	pieceCacheLen = 48 // longer pieces are rare, and split each time
)
