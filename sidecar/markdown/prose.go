package markdown

import (
	"regexp"
	"strings"
)

var (
	mathBlockRe = regexp.MustCompile(`(?s)\$\$.*?(\$\$|$)`)
	// As Obsidian reads it: no space inside either dollar, so "$5 and
	// $6" is money, not math.
	inlineMathRe = regexp.MustCompile(`\$[^\s$](?:[^$\n]*[^\s$])?\$`)
	inlineCodeRe = regexp.MustCompile("`[^`\n]*`")
	texCommandRe = regexp.MustCompile(`\\[A-Za-z]+`)
)

// Prose returns the words of body a reader reads as language: Plain text
// without fenced or inline code, $$math$$ and $inline math$, and without
// TeX commands left outside them. Language detection reads it: a note of
// formulas ("\func \par{x}") is not French because "par" is a French
// word, and a note of code is not English because its keywords are.
func Prose(body string) string {
	s := body
	if strings.Contains(s, "$$") {
		s = mathBlockRe.ReplaceAllString(s, " ")
	}
	s = mapLines(s, func(line string, code bool) string {
		if code {
			return ""
		}
		if strings.IndexByte(line, '$') >= 0 {
			line = inlineMathRe.ReplaceAllString(line, " ")
		}
		if strings.IndexByte(line, '`') >= 0 {
			line = inlineCodeRe.ReplaceAllString(line, " ")
		}
		if strings.IndexByte(line, '\\') >= 0 {
			line = texCommandRe.ReplaceAllString(line, " ")
		}
		return line
	})
	return Plain(s)
}
