package ask

import (
	"strconv"
	"strings"
	"unicode/utf16"
)

// answerStream turns the model's streamed JSON into the answer's text as
// it arrives: it reads the "answer" string out of the partial object and
// passes on what is new, holding back a citation marker until it is
// complete so that an invented one ([99]) never reaches the user.
type answerStream struct {
	n       int // passages given: valid ids are 1…n
	out     func(string)
	raw     strings.Builder
	seen    int    // bytes of the decoded answer already taken
	pending string // decoded text not yet passed on
}

func newAnswerStream(n int, out func(string)) *answerStream {
	return &answerStream{n: n, out: out}
}

// write takes one piece of the model's reply.
func (s *answerStream) write(delta string) {
	s.raw.WriteString(delta)
	dec := partialAnswer(s.raw.String())
	if len(dec) <= s.seen {
		return
	}
	s.pending += dec[s.seen:]
	s.seen = len(dec)
	s.drain(false)
}

// flush passes on what was held back, at the end of the reply.
func (s *answerStream) flush() { s.drain(true) }

func (s *answerStream) drain(final bool) {
	valid := func(n int) bool { return n >= 1 && n <= s.n }
	var b strings.Builder
	for s.pending != "" {
		i := strings.IndexByte(s.pending, '[')
		if i < 0 {
			// Hold back a trailing space: a marker may follow it, and a
			// dropped marker takes its space with it.
			cut := len(s.pending)
			if !final && strings.HasSuffix(s.pending, " ") {
				cut--
			}
			b.WriteString(s.pending[:cut])
			s.pending = s.pending[cut:]
			break
		}
		start := i
		if i > 0 && s.pending[i-1] == ' ' {
			start = i - 1
		}
		b.WriteString(s.pending[:start])
		s.pending = s.pending[start:]
		rest := s.pending[i-start:]
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			if !final && len(rest) < 24 && strings.Trim(rest[1:], "0123456789 ,;") == "" {
				break // maybe a marker: wait for its end
			}
			b.WriteString(s.pending[:i-start+1])
			s.pending = s.pending[i-start+1:]
			continue
		}
		cand := s.pending[:i-start+j+1]
		if loc := markerRe.FindStringIndex(cand); loc != nil && loc[0] == 0 && loc[1] == len(cand) {
			b.WriteString(rewriteMarkers(cand, valid))
		} else {
			// Not a marker: pass on up to the bracket and look again after it.
			cand = s.pending[:i-start+1]
			b.WriteString(cand)
		}
		s.pending = s.pending[len(cand):]
	}
	if b.Len() > 0 {
		s.out(b.String())
	}
}

// partialAnswer returns the decoded value of the top-level "answer" key in
// a JSON object that may still be arriving: as much of the string as has
// arrived, up to the last complete character. A leading <think> block and
// prose or a code fence before the object are skipped.
func partialAnswer(raw string) string {
	if t := strings.TrimSpace(raw); strings.HasPrefix(t, "<think>") {
		_, after, ok := strings.Cut(t, "</think>")
		if !ok {
			return ""
		}
		raw = after
	}
	i := strings.IndexByte(raw, '{')
	if i < 0 {
		return ""
	}
	depth := 0
	expectKey := false
	for i < len(raw) {
		switch c := raw[i]; c {
		case '"':
			str, end, complete := scanString(raw, i)
			if !complete {
				return ""
			}
			if depth == 1 && expectKey {
				expectKey = false
				j := skipSpace(raw, end)
				if j >= len(raw) || raw[j] != ':' {
					return ""
				}
				j = skipSpace(raw, j+1)
				if str == "answer" {
					if j < len(raw) && raw[j] == '"' {
						v, _, _ := scanString(raw, j)
						return v
					}
					return ""
				}
				i = j
				continue
			}
			i = end
			continue
		case '{':
			depth++
			expectKey = depth == 1
		case '[':
			depth++
		case '}', ']':
			depth--
			if depth <= 0 {
				return ""
			}
		case ',':
			if depth == 1 {
				expectKey = true
			}
		}
		i++
	}
	return ""
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t') {
		i++
	}
	return i
}

// scanString decodes the JSON string starting at the quote s[i]. It returns
// the text decoded so far, the index after the closing quote, and whether
// the string is complete; an escape cut by the end of s is left out.
func scanString(s string, i int) (string, int, bool) {
	var b strings.Builder
	i++
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, true
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return b.String(), len(s), false
		}
		switch e := s[i+1]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, width, ok := unicodeEscape(s[i:])
			if !ok {
				return b.String(), len(s), false
			}
			b.WriteRune(r)
			i += width
			continue
		default: // \" \\ \/ and anything else: the character itself
			b.WriteByte(e)
		}
		i += 2
	}
	return b.String(), len(s), false
}

// unicodeEscape reads \uXXXX, or a surrogate pair \uXXXX\uXXXX, at s's
// start. ok is false when s ends before the escape does.
func unicodeEscape(s string) (rune, int, bool) {
	if len(s) < 6 {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(s[2:6], 16, 16)
	if err != nil {
		return '\uFFFD', 6, true
	}
	r := rune(v)
	if !utf16.IsSurrogate(r) {
		return r, 6, true
	}
	if len(s) < 12 {
		return 0, 0, false
	}
	if s[6] == '\\' && s[7] == 'u' {
		if v2, err := strconv.ParseUint(s[8:12], 16, 16); err == nil {
			if d := utf16.DecodeRune(r, rune(v2)); d != '\uFFFD' {
				return d, 12, true
			}
		}
	}
	return '\uFFFD', 6, true
}
