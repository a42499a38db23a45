package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/quire-app/quire/proto"
)

// FuzzDecodeRequest feeds arbitrary frames to the request decoder and the
// payload decoding that follows it: no frame may panic, every refusal must
// carry a code from the closed set, and an accepted frame must be a known
// request with an id.
//
//	go test -run '^$' -fuzz FuzzDecodeRequest -fuzztime 60s ./server/
func FuzzDecodeRequest(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "proto", "testdata", "*.json"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		``, `{`, `[]`, `null`, `{"id":"1"}`, `{"id":"1","type":"search.query","payload":null}`,
		`{"id":"1","type":"search.query","payload":{"k":1e999}}`, `{"id":1,"type":"status.get"}`,
		`{"id":"\ud800","type":"note.get","payload":{"path":"../x"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = frameID(data)
		env, perr := decodeRequest(data)
		if perr != nil {
			if !perr.Code.Valid() || perr.Message == "" {
				t.Fatalf("refusal %+v has no valid code or message", perr)
			}
			if len(env.ID) > maxIDLen {
				t.Fatalf("refusal echoes an id of %d bytes", len(env.ID))
			}
			return
		}
		m, ok := proto.Lookup(env.Type)
		if !ok || m.Kind != proto.KindRequest || env.ID == "" {
			t.Fatalf("accepted %q as a request", data)
		}
		p := reflect.New(reflect.TypeOf(m.Payload)).Interface()
		if err := decode(env, p); err != nil {
			var pe *proto.Error
			if e, ok := err.(*proto.Error); !ok || e.Code != proto.CodeInvalidRequest {
				t.Fatalf("payload error %v (%T), want invalid_request", err, pe)
			}
			return
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatalf("decoded payload does not encode: %v", err)
		}
	})
}
