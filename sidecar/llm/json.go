package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms/openai"
)

// responseFormat turns a JSON Schema into OpenAI's response_format. The
// schema goes through langchaingo's typed property struct, which holds
// type, description, enum, items, properties, required and $ref (and sets
// additionalProperties false everywhere, as strict mode wants); other
// keywords are dropped, and a schema it cannot hold at all (e.g. "type" as
// a list) is an error here rather than a surprise at the server.
func responseFormat(schema any) (*openai.ResponseFormat, error) {
	raw, err := schemaJSON(schema)
	if err != nil {
		return nil, err
	}
	var prop openai.ResponseFormatJSONSchemaProperty
	if err := json.Unmarshal(raw, &prop); err != nil {
		return nil, fmt.Errorf("json schema: %w", err)
	}
	return &openai.ResponseFormat{Type: "json_schema", JSONSchema: &openai.ResponseFormatJSONSchema{
		Name: "reply", Strict: true, Schema: &prop,
	}}, nil
}

func schemaJSON(schema any) ([]byte, error) {
	var raw []byte
	switch s := schema.(type) {
	case []byte:
		raw = s
	case string:
		raw = []byte(s)
	default:
		b, err := json.Marshal(schema)
		if err != nil {
			return nil, fmt.Errorf("json schema: %w", err)
		}
		raw = b
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("json schema: not a JSON object: %w", err)
	}
	return raw, nil
}

// withInstruction adds the JSON instruction, with the schema, as a system
// message, for providers that take no schema in the request.
func withInstruction(msgs []Message, schema any) []Message {
	raw, err := schemaJSON(schema)
	var b strings.Builder
	b.WriteString("Reply with one JSON object and nothing else: no prose, no code fences.")
	if err == nil {
		var pretty bytes.Buffer
		if json.Indent(&pretty, raw, "", "  ") == nil {
			raw = pretty.Bytes()
		}
		b.WriteString(" It must match this JSON Schema:\n")
		b.Write(raw)
	}
	out := make([]Message, 0, len(msgs)+1)
	out = append(out, msgs...)
	return append(out, Message{Role: System, Content: b.String()})
}

// jsonText returns the JSON value in a reply: the text itself, or the text
// with a leading <think>…</think> block, a ```json fence, or prose around
// one {…} object removed. ok is false when no valid JSON is found.
func jsonText(text string) (string, bool) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "<think>") {
		if _, after, found := strings.Cut(t, "</think>"); found {
			t = strings.TrimSpace(after)
		}
	}
	if json.Valid([]byte(t)) && t != "" {
		return t, true
	}
	if strings.HasPrefix(t, "```") {
		t = strings.TrimPrefix(t, "```")
		t = strings.TrimPrefix(t, "json")
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t), "```"))
		if json.Valid([]byte(t)) && t != "" {
			return t, true
		}
	}
	if i, j := strings.IndexByte(t, '{'), strings.LastIndexByte(t, '}'); i >= 0 && j > i {
		if s := t[i : j+1]; json.Valid([]byte(s)) {
			return s, true
		}
	}
	return "", false
}
