package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/quire-app/quire/proto"
)

// schemaDoc is the part of the generated file that the tests read.
type schemaDoc struct {
	Messages []messageInfo `json:"x-messages"`
	Defs     map[string]struct {
		Description string                     `json:"description"`
		Enum        []string                   `json:"enum"`
		Properties  map[string]json.RawMessage `json:"properties"`
	} `json:"$defs"`
}

func generateAtRoot(t *testing.T) []byte {
	t.Helper()
	// The comment reader needs the proto directory relative to the
	// repository root, as scripts/gen-proto runs it.
	t.Chdir("../..")
	data, err := generate("proto")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestGenerateIsDeterministic(t *testing.T) {
	a := generateAtRoot(t)
	for range 5 {
		b, err := generate("proto")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatal("two generations differ")
		}
	}
}

func TestGenerateCoversProto(t *testing.T) {
	var doc schemaDoc
	if err := json.Unmarshal(generateAtRoot(t), &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := len(doc.Messages), len(proto.Messages); got != want {
		t.Errorf("x-messages has %d rows, want %d", got, want)
	}
	for _, m := range doc.Messages {
		if _, ok := doc.Defs[m.Payload]; !ok {
			t.Errorf("%s: payload %s has no definition", m.Type, m.Payload)
		}
	}
	// Every type the TypeScript side sees carries its Go doc comment.
	for name, def := range doc.Defs {
		if def.Description == "" {
			t.Errorf("definition %s has no description: give the Go type a doc comment", name)
		}
	}
	if got, want := doc.Defs["ErrorCode"].Enum, len(proto.ErrorCodes); len(got) != want {
		t.Errorf("ErrorCode enum %v, want %d codes", got, want)
	}
	if _, ok := doc.Defs["Error"]; ok {
		t.Error("definition Error would shadow TypeScript's global Error; want ErrorPayload")
	}
	if got := doc.Defs["Envelope"].Properties["type"]; !bytes.Contains(got, []byte(`"#/$defs/MessageType"`)) {
		t.Errorf("Envelope.type = %s, want a reference to MessageType", got)
	}
}
