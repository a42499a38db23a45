package ask

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPartialAnswer(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`{"answer": "Rennet curd`, "Rennet curd"},
		{`{"citations": [1, {"answer": "no"}], "answer": "yes`, "yes"},
		{`{"quotes": [{"text": "\"answer\": \"x\""}], "answer": "real"}`, "real"},
		{`{"answer": "tab\tline\nquote\" é \u00e9 \ud83d\ude00 end"}`, "tab\tline\nquote\" é é 😀 end"},
		{`{"answer": "cut \u00`, "cut "},
		{`{"answer": "cut \ud83d`, "cut "},
		{`{"answer": "cut \`, "cut "},
		{"<think>{\"answer\": \"no\"}</think>\n```json\n{\"answer\": \"yes\"}", "yes"},
		{`<think>{"answer": "no`, ""},
		{`{"notFound": true, "answer"`, ""},
		{`Here you go: {"answer": "ok"}`, "ok"},
	}
	for _, tt := range tests {
		if got := partialAnswer(tt.raw); got != tt.want {
			t.Errorf("partialAnswer(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

// TestStreamEverySplit feeds a reply cut at every byte boundary, in pieces
// of several sizes, and checks that the text passed on is the checked
// answer: invented markers gone, valid ones kept, nothing else changed.
func TestStreamEverySplit(t *testing.T) {
	answer := "Whey [1] and curds [2, 9]; the [x] stays, [99] goes. A list [1][3] and „é” \\ end [4]"
	raw, _ := json.Marshal(map[string]any{"notFound": false, "answer": answer, "citations": []int{1, 2}})
	want := rewriteMarkers(answer, func(n int) bool { return n >= 1 && n <= 3 })
	if strings.Contains(want, "99") || !strings.Contains(want, "[2]") || !strings.Contains(want, "[x]") {
		t.Fatalf("rewriteMarkers gave %q", want)
	}
	for size := 1; size <= 7; size++ {
		for off := 0; off < size; off++ {
			var got strings.Builder
			s := newAnswerStream(3, func(d string) { got.WriteString(d) })
			text := string(raw)
			s.write(text[:off])
			for i := off; i < len(text); i += size {
				s.write(text[i:min(i+size, len(text))])
			}
			s.flush()
			if got.String() != want {
				t.Fatalf("pieces of %d from %d: got %q, want %q", size, off, got.String(), want)
			}
		}
	}
}
