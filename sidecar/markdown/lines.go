package markdown

import "strings"

// MapLines returns md with f applied to every line outside fenced code
// blocks (``` or ~~~); fence lines and the code between them are kept as
// they are.
func MapLines(md string, f func(line string) string) string {
	return mapLines(md, func(line string, code bool) string {
		if code {
			return line
		}
		return f(line)
	})
}

// mapLines returns md with f applied to every line, told whether the line
// is a fence line or code inside a fenced block (``` or ~~~).
func mapLines(md string, f func(line string, code bool) string) string {
	lines := strings.Split(md, "\n")
	var fence Fence
	for i, l := range lines {
		lines[i] = f(l, fence.Line(l))
	}
	return strings.Join(lines, "\n")
}
