// Command genschema writes the JSON Schema of the Quire wire protocol,
// reflected from the Go types in package proto. scripts/gen-proto runs it
// and then turns the schema into TypeScript; see that script.
//
// Usage, from the repository root:
//
//	go run ./scripts/genschema -proto proto -o proto/schema.json
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"

	"github.com/invopop/jsonschema"
	"github.com/quire-app/quire/proto"
)

// modulePath is the import path prefix that AddGoComments needs to match
// parsed comments with reflected types.
const modulePath = "github.com/quire-app/quire"

func main() {
	src := flag.String("proto", "proto", "directory of package proto's source, relative to the repository root (for doc comments)")
	out := flag.String("o", "proto/schema.json", "file to write")
	flag.Parse()

	data, err := generate(*src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genschema:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genschema:", err)
		os.Exit(1)
	}
}

// messageInfo is one row of the x-messages table: what proto.Messages says
// about a type, with the payload named by its schema definition.
type messageInfo struct {
	Type    string `json:"type"`
	Kind    string `json:"kind"`
	Payload string `json:"payload"`
	Reply   string `json:"reply,omitempty"`
	Stream  bool   `json:"stream,omitempty"`
}

// document is the schema file. A struct rather than a map keeps the
// top-level keys in a readable order; json.Marshal sorts the $defs.
type document struct {
	Schema      string                        `json:"$schema"`
	ID          string                        `json:"$id"`
	Title       string                        `json:"title"`
	Description string                        `json:"description"`
	Version     int                           `json:"x-protocolVersion"`
	MinVersion  int                           `json:"x-minProtocolVersion"`
	Messages    []messageInfo                 `json:"x-messages"`
	Type        string                        `json:"type"`
	Properties  map[string]*jsonschema.Schema `json:"properties"`
	Required    []string                      `json:"required"`
	Additional  bool                          `json:"additionalProperties"`
	Defs        map[string]*jsonschema.Schema `json:"$defs"`
}

// enums maps the protocol's closed string sets to their definition names
// and members, taken from the lists in package proto so that the Go
// constants stay the only place they are spelled.
var enums = map[reflect.Type]struct {
	name    string
	members []string
}{
	reflect.TypeOf(proto.ErrorCode("")):      {"ErrorCode", strs(proto.ErrorCodes)},
	reflect.TypeOf(proto.Channel("")):        {"Channel", strs(proto.Channels)},
	reflect.TypeOf(proto.Phase("")):          {"Phase", strs(proto.Phases)},
	reflect.TypeOf(proto.IngestStep("")):     {"IngestStep", strs(proto.IngestSteps)},
	reflect.TypeOf(proto.IngestFailCode("")): {"IngestFailCode", strs(proto.IngestFailCodes)},
}

func strs[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

func enumSchema(desc string, members []string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string", Description: desc}
	for _, m := range members {
		s.Enum = append(s.Enum, m)
	}
	return s
}

// generate reflects every payload in proto.Messages into one schema
// document whose root maps each message type to its payload.
func generate(src string) ([]byte, error) {
	r := &jsonschema.Reflector{
		Anonymous: true,
		Namer:     defName,
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if e, ok := enums[t]; ok {
				// A fresh schema each time: the reflector writes field
				// descriptions into what it gets back.
				return &jsonschema.Schema{Ref: "#/$defs/" + e.name}
			}
			return nil
		},
	}
	if err := r.AddGoComments(modulePath, src); err != nil {
		return nil, fmt.Errorf("read comments in %s: %w", src, err)
	}

	doc := document{
		Schema:      "https://json-schema.org/draft/2020-12/schema",
		ID:          "https://quire.invalid/proto/v" + fmt.Sprint(proto.Version) + "/schema.json",
		Title:       "Payloads",
		Description: fmt.Sprintf("Quire wire protocol version %d, generated from package proto by scripts/gen-proto: do not edit. The root maps each message type to its payload; x-messages lists each type's kind and reply.", proto.Version),
		Version:     proto.Version,
		MinVersion:  proto.MinVersion,
		Type:        "object",
		Properties:  map[string]*jsonschema.Schema{},
		Defs:        map[string]*jsonschema.Schema{},
	}

	var types []any
	for _, m := range proto.Messages {
		t := reflect.TypeOf(m.Payload)
		s := r.Reflect(m.Payload)
		for name, def := range s.Definitions {
			if prev, ok := doc.Defs[name]; ok && !sameSchema(prev, def) {
				return nil, fmt.Errorf("two Go types reflect to definition %q", name)
			}
			doc.Defs[name] = def
		}
		ref := "#/$defs/" + defName(t)
		if s.Ref != ref {
			return nil, fmt.Errorf("%s: payload %s reflected to %q, want %q", m.Type, t, s.Ref, ref)
		}
		doc.Properties[m.Type] = &jsonschema.Schema{Ref: ref}
		doc.Required = append(doc.Required, m.Type)
		doc.Messages = append(doc.Messages, messageInfo{
			Type: m.Type, Kind: string(m.Kind), Payload: defName(t), Reply: m.Reply, Stream: m.Stream,
		})
		types = append(types, m.Type)
	}

	for t, e := range enums {
		desc := r.CommentMap[t.PkgPath()+"."+t.Name()]
		doc.Defs[e.name] = enumSchema(desc, e.members)
	}
	doc.Defs["MessageType"] = &jsonschema.Schema{
		Type:        "string",
		Description: "MessageType is every envelope type of this protocol version.",
		Enum:        types,
	}
	doc.Defs["Envelope"] = envelopeSchema(r)
	for _, def := range doc.Defs {
		dropRefDescriptions(def)
	}

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encode schema: %w", err)
	}
	return buf.Bytes(), nil
}

// envelopeSchema is proto.Envelope with its raw payload described as an
// object and its type narrowed to MessageType.
func envelopeSchema(r *jsonschema.Reflector) *jsonschema.Schema {
	s := r.Reflect(proto.Envelope{})
	env := s.Definitions["Envelope"]
	if p, ok := env.Properties.Get("type"); ok {
		env.Properties.Set("type", &jsonschema.Schema{Ref: "#/$defs/MessageType", Description: p.Description})
	}
	if p, ok := env.Properties.Get("payload"); ok {
		env.Properties.Set("payload", &jsonschema.Schema{Type: "object", AdditionalProperties: jsonschema.TrueSchema, Description: p.Description})
	}
	return env
}

// defName names a Go type's schema definition, and so its TypeScript type.
// proto.Error becomes ErrorPayload: a TypeScript type named Error would
// shadow the global Error class in every file that imports it.
func defName(t reflect.Type) string {
	if t == reflect.TypeOf(proto.Error{}) {
		return "ErrorPayload"
	}
	return t.Name()
}

// dropRefDescriptions removes field descriptions beside a $ref:
// json-schema-to-typescript reads a $ref with siblings as a new type and
// would emit copies (Passage1, inline enums) instead of naming the shared
// one. The referenced type keeps its own description.
func dropRefDescriptions(s *jsonschema.Schema) {
	if s == nil || s.Properties == nil {
		return
	}
	for p := s.Properties.Oldest(); p != nil; p = p.Next() {
		if p.Value.Ref != "" {
			p.Value.Description = ""
		}
	}
}

func sameSchema(a, b *jsonschema.Schema) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}
