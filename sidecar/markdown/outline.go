package markdown

// Heading is one heading of a note: where its line starts in the raw
// file, and the heading path it opens (without the note title), as the
// passages under it carry it.
type Heading struct {
	Start int
	Path  []string
}

// Outline returns the headings of raw[bodyStart:] in order, with offsets
// into raw, read as Split reads them: a passage that merged several small
// sections can then be named by the one holding what was searched for.
// p are the chunking parameters the note was split with.
func Outline(raw []byte, bodyStart int, p Params) []Heading {
	body := raw[bodyStart:]
	var out []Heading
	var path []string
	var levels []int
	for _, b := range parseBlocks(body, (&Chunker{P: p}).wholeBytes()) {
		if b.kind != kindHeading {
			continue
		}
		for len(levels) > 0 && levels[len(levels)-1] >= b.level {
			levels, path = levels[:len(levels)-1], path[:len(path)-1]
		}
		levels, path = append(levels, b.level), append(path, b.heading)
		out = append(out, Heading{Start: bodyStart + b.start, Path: append([]string(nil), path...)})
	}
	return out
}
