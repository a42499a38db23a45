package markdown

import (
	"math"
	"strings"
	"testing"
)

// The estimate that sizes windows in very long sections stays within a
// third of cl100k's count on ordinary prose, code and lists.
func TestEstimateNearCL100K(t *testing.T) {
	texts := map[string]string{
		"prose": strings.Repeat("Cheese ripens in caves where humidity and temperature are kept steady for months, so the rind forms. ", 50),
		"code":  strings.Repeat("func main() {\n\tfmt.Println(\"a line of code\", 42)\n}\n", 50),
		"list":  strings.Repeat("- item with a few words\n  - nested item 12\n", 50),
	}
	for name, s := range texts {
		got, want := len(estimateOffsets(s)), len(CL100K().Offsets(s))
		if r := float64(got) / float64(want); math.Abs(r-1) > 1.0/3 {
			t.Errorf("%s: estimate %d tokens, cl100k %d", name, got, want)
		}
	}
}
