package llm

import (
	"strings"
	"testing"
)

func TestJSONText(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"plain", `{"a":1}`, `{"a":1}`, true},
		{"spaces", " \n{\"a\":1}\n ", `{"a":1}`, true},
		{"fenced", "```json\n{\"a\":1}\n```", `{"a":1}`, true},
		{"bare fence", "```\n{\"a\":1}\n```", `{"a":1}`, true},
		{"think block", "<think>the user wants {x}</think>\n{\"a\":1}", `{"a":1}`, true},
		{"prose around", "Here it is: {\"a\": {\"b\": 2}} Hope it helps.", `{"a": {"b": 2}}`, true},
		{"array", `[1,2]`, `[1,2]`, true},
		{"prose", "The answer is yes.", "", false},
		{"truncated", `{"a": "unfinished`, "", false},
		{"empty", "", "", false},
		{"two objects", `{"a":1} and {"b":2}`, "", false},
	}
	for _, tt := range tests {
		got, ok := jsonText(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: jsonText(%q) = %q, %v; want %q, %v", tt.name, tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestResponseFormat(t *testing.T) {
	rf, err := responseFormat(map[string]any{
		"type":       "object",
		"properties": map[string]any{"ids": map[string]any{"type": "array", "items": map[string]any{"type": "integer"}}},
		"required":   []string{"ids"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rf.Type != "json_schema" || rf.JSONSchema.Schema.Properties["ids"].Items.Type != "integer" {
		t.Errorf("response format = %+v", rf)
	}
	for _, bad := range []any{"not json", 42, []string{"a"}} {
		if _, err := responseFormat(bad); err == nil {
			t.Errorf("responseFormat(%v) = nil error", bad)
		}
	}
}

func TestWithInstruction(t *testing.T) {
	msgs := []Message{{Role: User, Content: "q"}}
	got := withInstruction(msgs, map[string]any{"type": "object"})
	if len(got) != 2 || len(msgs) != 1 {
		t.Fatalf("got %d messages (input now %d), want 2 (input untouched)", len(got), len(msgs))
	}
	if last := got[1]; last.Role != System || !strings.Contains(last.Content, `"type": "object"`) {
		t.Errorf("instruction = %+v", last)
	}
}

func TestPrefixFor(t *testing.T) {
	tests := []struct {
		model, doc, query string
	}{
		{"nomic-embed-text", "search_document: ", "search_query: "},
		{"nomic-embed-text:v1.5", "search_document: ", "search_query: "},
		{"jeffh/intfloat-multilingual-e5-large:f16", "passage: ", "query: "},
		{"intfloat/e5-base-v2", "passage: ", "query: "},
		{"qwen3-embedding:0.6b", "", "Instruct: Given a search query, retrieve relevant passages that answer the query\nQuery: "},
		{"bge-m3", "", ""},
		{"text-embedding-3-small", "", ""},
	}
	for _, tt := range tests {
		p := prefixFor(tt.model)
		if p.document != tt.doc || p.query != tt.query {
			t.Errorf("prefixFor(%q) = %q / %q, want %q / %q", tt.model, p.document, p.query, tt.doc, tt.query)
		}
	}
}
