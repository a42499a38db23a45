package markdown

import (
	"strings"
	"testing"
)

func TestFence(t *testing.T) {
	// Each line of the note, and whether it is code.
	note := []struct {
		line string
		code bool
	}{
		{"Text", false},
		{"```go", true},
		{"~~~ not a close: another fence character", true},
		{"# not a heading", true},
		{"   ```", true},
		{"# a heading again", false},
		{"\t~~~", true},
		{"```", true},
		{"~~~~", true},
		{"after", false},
		{"````", true},
	}
	var f Fence
	var got, want []string
	for _, l := range note {
		if f.Line(l.line) != l.code {
			got = append(got, l.line)
		}
		if l.code {
			want = append(want, l.line)
		}
	}
	if len(got) > 0 {
		t.Errorf("read wrongly: %q (code: %q)", got, want)
	}
	if !f.Open() {
		t.Error("a block opened on the last line is not open")
	}
	if !IsFenceLine("  ~~~js") || IsFenceLine("text ```") || !IsFenceLine("```") {
		t.Error("IsFenceLine")
	}
	if strings.Contains(MapLines("a\n```\nb\n```\nc", strings.ToUpper), "B") {
		t.Error("MapLines changed code")
	}
}
