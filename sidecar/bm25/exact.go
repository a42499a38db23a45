package bm25

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/search/query"
)

// exactField holds a passage's exact tokens (ExactTokens of its body, and
// its frontmatter tags as #tag): the strings the language analyzers cut
// into words or stem away. "10.0.0.1" and "v1.2.3" survive them whole,
// but a query for "kebab-case" also finds "kebab" and "case" apart, one
// for "#draft" any "drafts", and one for "/etc/nginx/nginx.conf" every
// nginx; a match here lifts the passages that hold the string itself.
const exactField = "exact"

// maxExact bounds an exact token, in bytes: longer runs without a space
// are base64, minified code or a URL's query string, no one's query.
const maxExact = 128

// ExactTokens returns the tokens of text that a language analyzer would
// split or stem, lowercased, in order, repeats kept: runs between spaces
// and brackets, quotes, emphasis marks, commas and the like, with
// punctuation trimmed from both ends (a leading #, /, ~, . , $, @ or -
// kept: "#tag", "/etc", "~/.config", ".env", "$HOME", "@user",
// "--force"), that hold a letter or digit and either punctuation inside
// ("snake_case", "kebab-case", "v1.2.3", "192.168.0.1", "a/b.md") or a
// kept leading mark. Plain words are left out: the language fields hold
// them.
func ExactTokens(text string) []string {
	var out []string
	for _, run := range strings.FieldsFunc(text, exactSplit) {
		if t, ok := exactToken(run); ok {
			out = append(out, t)
		}
	}
	return out
}

// exactSplit separates exact tokens: spaces, brackets, quotes, emphasis
// and list punctuation, none of which a path, version or identifier holds.
func exactSplit(r rune) bool {
	if unicode.IsSpace(r) {
		return true
	}
	switch r {
	case '(', ')', '[', ']', '{', '}', '<', '>', '"', '\'', '`', '*', '|', ',', ';', '!', '?',
		'“', '”', '‘', '’', '«', '»', '„':
		return true
	}
	return false
}

// keptLead are the marks an exact token may begin with.
const keptLead = "#/~.$@-"

// exactToken trims run and reports whether it is an exact token.
func exactToken(run string) (string, bool) {
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }
	t := strings.TrimRightFunc(run, func(r rune) bool { return !word(r) })
	start := strings.IndexFunc(t, word)
	if start < 0 {
		return "", false
	}
	lead := start
	for lead > 0 && strings.ContainsRune(keptLead, rune(t[lead-1])) {
		lead--
	}
	led := lead < start
	t = t[lead:]
	if len(t) > maxExact {
		return "", false
	}
	inner := false
	for _, r := range t[start-lead:] {
		if !word(r) {
			inner = true
			break
		}
	}
	if !inner && !led {
		return "", false
	}
	if !utf8.ValidString(t) {
		return "", false
	}
	return strings.ToLower(t), true
}

// exactTerms are the exact field's values for a passage.
func (d Doc) exactTerms() []string {
	out := ExactTokens(d.Body)
	for _, tag := range d.Tags {
		if tag != "" {
			out = append(out, "#"+strings.ToLower(strings.TrimPrefix(tag, "#")))
		}
	}
	return out
}

// addExact adds to a word's clauses the exact tokens of the query field
// it came from, at weight w (0 leaves them out).
func (qs *clauses) addExact(field string, w float64) {
	if w == 0 {
		return
	}
	for _, t := range ExactTokens(field) {
		tq := query.NewTermQuery(t)
		tq.SetField(exactField)
		tq.SetBoost(w)
		*qs = append(*qs, tq)
	}
}
