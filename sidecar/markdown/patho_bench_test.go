package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// Pathological notes up to the default max_file_bytes (5 MB): chunking
// must stay linear in the note's size with bounded memory.

// nestedList is a list whose indentation climbs 200 levels deep and
// starts over, for about size bytes.
func nestedList(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		b.WriteString(strings.Repeat("  ", i%200))
		fmt.Fprintf(&b, "- item %d\n", i)
	}
	return []byte(b.String())
}

// markerLines repeats a line of 60 list markers: 60 lists nested on one line.
func markerLines(size int) []byte {
	line := strings.Repeat("- ", 60) + "x\n"
	return []byte(strings.Repeat(line, size/len(line)))
}

// manyHeadings is n headings of every level and nothing else.
func manyHeadings(n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s Heading number %d of the note\n", strings.Repeat("#", 1+i%6), i)
	}
	return []byte(b.String())
}

func benchSplit(b *testing.B, raw []byte) {
	c := New(Params{MaxTokens: 256, OverlapTokens: 64, MinTokens: 64})
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		n = len(c.Split(raw, 0))
	}
	b.ReportMetric(float64(n), "chunks")
}

func BenchmarkPathological(b *testing.B) {
	b.Run("nested-list-4MB", func(b *testing.B) { benchSplit(b, nestedList(4<<20)) })
	b.Run("list-markers-4MB", func(b *testing.B) { benchSplit(b, markerLines(4<<20)) })
	b.Run("headings-100k", func(b *testing.B) { benchSplit(b, manyHeadings(100000)) })
}

// BenchmarkNestedListGrowth shows whether time grows linearly with size.
func BenchmarkNestedListGrowth(b *testing.B) {
	for _, mb := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) { benchSplit(b, nestedList(mb<<20)) })
	}
}
