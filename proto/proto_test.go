package proto

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// decodeStrict decodes data into v and fails on fields v does not have, so
// that an example with a renamed field cannot pass.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// sameJSON reports whether a and b hold the same JSON value, ignoring key
// order and spacing.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("unmarshal %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

// TestExamples decodes every canonical example into its Go type and encodes
// it back: a field renamed on either side, or a field the example lacks,
// makes the round trip differ.
func TestExamples(t *testing.T) {
	for _, m := range Messages {
		t.Run(m.Type, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", m.Type+".json"))
			if err != nil {
				t.Fatalf("every message type needs an example: %v", err)
			}
			var env Envelope
			if err := decodeStrict(data, &env); err != nil {
				t.Fatalf("decode envelope: %v", err)
			}
			if got, want := env.Type, m.Type; got != want {
				t.Errorf("type = %q, want %q", got, want)
			}
			switch m.Kind {
			case KindRequest, KindReply, KindPart, KindDone:
				if env.ID == "" {
					t.Errorf("%s frame without id", m.Kind)
				}
			case KindEvent, KindHandshake:
				if env.ID != "" {
					t.Errorf("%s frame with id %q", m.Kind, env.ID)
				}
			}

			p := reflect.New(reflect.TypeOf(m.Payload))
			if err := decodeStrict(env.Payload, p.Interface()); err != nil {
				t.Fatalf("decode payload into %T: %v", m.Payload, err)
			}
			again, err := json.Marshal(p.Interface())
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, env.Payload, again) {
				t.Errorf("payload does not survive a round trip through %T\n got: %s\nwant: %s", m.Payload, again, env.Payload)
			}

			checkEnums(t, p.Elem())
		})
	}
}

// checkEnums fails when a closed-set field in v holds a value outside its
// set, so that examples cannot teach a code that does not exist.
func checkEnums(t *testing.T, v reflect.Value) {
	t.Helper()
	switch x := v.Interface().(type) {
	case ErrorCode:
		if x != "" && !x.Valid() {
			t.Errorf("unknown error code %q", x)
		}
		return
	case Channel:
		if x != "" && !contains(Channels, x) {
			t.Errorf("unknown channel %q", x)
		}
		return
	case Phase:
		if !contains(Phases, x) {
			t.Errorf("unknown phase %q", x)
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				checkEnums(t, v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			checkEnums(t, v.Index(i))
		}
	}
}

func contains[T comparable](list []T, x T) bool {
	for _, y := range list {
		if x == y {
			return true
		}
	}
	return false
}

// TestExamplesAreKnown catches an example left behind after its type was
// renamed or removed.
func TestExamplesAreKnown(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no examples in testdata")
	}
	for _, f := range files {
		typ := strings.TrimSuffix(filepath.Base(f), ".json")
		if _, ok := Lookup(typ); !ok {
			t.Errorf("%s: no message type %q in Messages", f, typ)
		}
	}
}

// TestTypeConstantsRegistered reads this package's source for every Type*
// constant and checks that Messages lists exactly those, so that a new
// message cannot miss the schema, the TypeScript table or an example.
func TestTypeConstantsRegistered(t *testing.T) {
	consts := map[string]string{} // value -> constant name
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if !strings.HasPrefix(id.Name, "Type") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					if other, dup := consts[v]; dup {
						t.Errorf("%s and %s both name %q", other, id.Name, v)
					}
					consts[v] = id.Name
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, m := range Messages {
		if seen[m.Type] {
			t.Errorf("Messages lists %q twice", m.Type)
		}
		seen[m.Type] = true
		if _, ok := consts[m.Type]; !ok {
			t.Errorf("Messages lists %q, which no Type constant names", m.Type)
		}
	}
	for v, name := range consts {
		if !seen[v] {
			t.Errorf("%s = %q is missing from Messages", name, v)
		}
	}
}

// TestMessagesTable checks that the table's pairs agree with the stream
// convention in the package doc.
func TestMessagesTable(t *testing.T) {
	for _, m := range Messages {
		// An event may end in .done too (ingest.done): it has no id, so no
		// client mistakes it for the end of a stream.
		if IsDone(m.Type) != (m.Kind == KindDone) && m.Kind != KindEvent {
			t.Errorf("%s: kind %s, but only done frames and events may end in .done", m.Type, m.Kind)
		}
		if m.Kind != KindRequest && m.Type != TypeHello {
			if m.Reply != "" || m.Stream {
				t.Errorf("%s: a %s has no reply", m.Type, m.Kind)
			}
			continue
		}
		r, ok := Lookup(m.Reply)
		if !ok {
			t.Errorf("%s: reply %q is not in Messages", m.Type, m.Reply)
			continue
		}
		want := KindReply
		switch {
		case m.Stream:
			want = KindDone
		case m.Type == TypeHello:
			want = KindHandshake
		}
		if r.Kind != want {
			t.Errorf("%s: reply %s is a %s, want %s", m.Type, r.Type, r.Kind, want)
		}
	}
}

func TestEnvelopeDecode(t *testing.T) {
	tests := []struct {
		name  string
		frame string
		want  SearchQuery
	}{
		{"plain", `{"id":"1","type":"search.query","payload":{"query":"a","k":3}}`, SearchQuery{Query: "a", K: 3}},
		{"unknown fields ignored", `{"id":"1","type":"search.query","extra":1,"payload":{"query":"a","rerank":true}}`, SearchQuery{Query: "a"}},
		{"missing payload", `{"id":"1","type":"search.query"}`, SearchQuery{}},
		{"null payload", `{"id":"1","type":"search.query","payload":null}`, SearchQuery{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var env Envelope
			if err := json.Unmarshal([]byte(tt.frame), &env); err != nil {
				t.Fatal(err)
			}
			var got SearchQuery
			if err := env.Decode(&got); err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}

	env := Envelope{Type: TypeSearchQuery, Payload: json.RawMessage(`{"k":"three"}`)}
	var q SearchQuery
	err := env.Decode(&q)
	if err == nil || !strings.HasPrefix(err.Error(), "decode search.query payload: ") {
		t.Errorf("wrong-typed field: got error %v, want a decode error naming the type", err)
	}
}

func TestNewEnvelope(t *testing.T) {
	env, err := NewEnvelope("9", TypeError, Error{Code: CodeNotFound, Message: "gone"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"9","type":"error","payload":{"code":"not_found","message":"gone"}}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}

	// Events leave the id out of the frame rather than sending "".
	env, err = NewEnvelope("", TypeIndexChanged, IndexChanged{Paths: []string{"a.md"}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = json.Marshal(env)
	if want := `{"type":"index.changed","payload":{"paths":["a.md"]}}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}

	if _, err := NewEnvelope("1", "x", func() {}); err == nil {
		t.Error("NewEnvelope with an unencodable payload: got nil error")
	}
}

func TestIsDone(t *testing.T) {
	tests := []struct {
		typ  string
		want bool
	}{
		{"ask.done", true},
		{"ingest.done", true},
		{"search.result", false},
		{"done", false},
		{"index.progress", false},
	}
	for _, tt := range tests {
		if got := IsDone(tt.typ); got != tt.want {
			t.Errorf("IsDone(%q) = %v, want %v", tt.typ, got, tt.want)
		}
	}
}

func TestErrorCodeValid(t *testing.T) {
	for _, c := range ErrorCodes {
		if !c.Valid() {
			t.Errorf("%q.Valid() = false", c)
		}
	}
	for _, c := range []ErrorCode{"", "bad_token", "Internal"} {
		if c.Valid() {
			t.Errorf("%q.Valid() = true", c)
		}
	}
	var err error = &Error{Code: CodeTooLarge, Message: "frame over 1 MiB"}
	if got, want := err.Error(), "too_large: frame over 1 MiB"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestZeroValuesEncodeArrays checks that every payload's zero value encodes
// its required arrays as [], never null, by walking the encoded JSON of each
// message type's zero value.
func TestZeroValuesEncodeArrays(t *testing.T) {
	for _, m := range Messages {
		data, err := json.Marshal(m.Payload)
		if err != nil {
			t.Fatalf("%s: %v", m.Type, err)
		}
		if bytes.Contains(data, []byte("null")) {
			t.Errorf("%s: zero value encodes a null: %s", m.Type, data)
		}
	}
	// Nested: a passage inside a result, with its own nil breadcrumb.
	data, err := json.Marshal(RelatedResult{Notes: []RelatedNote{{Path: "a.md"}}})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("null")) {
		t.Errorf("nested passage encodes a null: %s", data)
	}
}

// TestFieldNamesLowerCamel walks every payload type and checks that each
// JSON field name is lowerCamel, the protocol's one naming rule for fields.
func TestFieldNamesLowerCamel(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Slice || typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || typ.PkgPath() != reflect.TypeOf(Envelope{}).PkgPath() {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !lowerCamel(name) {
				t.Errorf("%s.%s: JSON name %q is not lowerCamel", typ.Name(), f.Name, name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(Envelope{}))
	for _, m := range Messages {
		walk(reflect.TypeOf(m.Payload))
	}
}

func lowerCamel(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// TestNegotiate pairs this build with peers older and newer than it: any
// overlap of ranges talks at the newest common version, and a refusal
// says which side to update.
func TestNegotiate(t *testing.T) {
	tests := []struct {
		name             string
		peerMin, peerMax int
		want             int
		update           string // "" when accepted
	}{
		{"same range", MinVersion, Version, Version, ""},
		{"a peer from before ranges (hello names one version)", 0, Version, Version, ""},
		{"a newer peer that still speaks ours", MinVersion, Version + 3, Version, ""},
		{"a newer peer that no longer speaks ours", Version + 1, Version + 3, 0, "update the sidecar"},
		{"an older peer below our range", 0, MinVersion - 1, 0, "update the client"},
		{"a backwards range is read as its newest version", Version + 2, Version, Version, ""},
	}
	for _, tt := range tests {
		got, err := Negotiate(tt.peerMin, tt.peerMax)
		if tt.update == "" {
			if err != nil || got != tt.want {
				t.Errorf("%s: Negotiate(%d, %d) = %d, %v; want %d", tt.name, tt.peerMin, tt.peerMax, got, err, tt.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.update) {
			t.Errorf("%s: Negotiate(%d, %d) = %d, %v; want an error saying %q", tt.name, tt.peerMin, tt.peerMax, got, err, tt.update)
		}
	}
}

// TestRequestsAreTheRequestKinds checks that Requests lists each request
// of Messages once and nothing else.
func TestRequestsAreTheRequestKinds(t *testing.T) {
	got := Requests()
	seen := map[string]bool{}
	for _, typ := range got {
		m, ok := Lookup(typ)
		if !ok || m.Kind != KindRequest || seen[typ] {
			t.Errorf("Requests has %q (known %v, kind %s, twice %v)", typ, ok, m.Kind, seen[typ])
		}
		seen[typ] = true
	}
	for _, m := range Messages {
		if m.Kind == KindRequest && !seen[m.Type] {
			t.Errorf("Requests lacks %s", m.Type)
		}
	}
}
