package markdown

import "strings"

// MapLines returns md with f applied to every line outside fenced code
// blocks (``` or ~~~); fence lines and the code between them are kept as
// they are.
func MapLines(md string, f func(line string) string) string {
	lines := strings.Split(md, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		lines[i] = f(l)
	}
	return strings.Join(lines, "\n")
}
