package markdown

import (
	"strings"
	"testing"
)

func TestMapLines(t *testing.T) {
	in := "# a\n```go\n# code\n```\ntext\n  ~~~\n# tilde code\n~~~\n# b"
	got := MapLines(in, strings.ToUpper)
	want := "# A\n```go\n# code\n```\nTEXT\n  ~~~\n# tilde code\n~~~\n# B"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
