package markdown

import "strings"

// Fence follows fenced code blocks line by line: a line that starts, after
// its indent, with ``` or ~~~ opens a block, which the next line starting
// with the same three characters closes. Every line-by-line reader of
// Markdown (the chunker's scan of a huge note, MapLines, LinkLines, a
// note's first heading, ask's sentences, the linter) keeps track of code with it, so that they agree
// on what is code.
type Fence struct{ open string }

// Line reads the next line and reports whether it is code: a fence line or
// a line inside a block.
func (f *Fence) Line(line string) (code bool) {
	t := strings.TrimLeft(line, " \t")
	switch {
	case f.open != "":
		if strings.HasPrefix(t, f.open) {
			f.open = ""
		}
		return true
	case IsFenceLine(t):
		f.open = t[:3]
		return true
	}
	return false
}

// Open reports whether the lines read so far left a block open.
func (f *Fence) Open() bool { return f.open != "" }

// IsFenceLine reports whether line opens or closes a fenced code block.
func IsFenceLine(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
}
