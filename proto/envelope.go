// Package proto holds the messages that the Quire sidecar and its clients
// (the Obsidian plugin, the CLI, tests) exchange over a localhost websocket.
// It is the single source of truth for the wire: scripts/gen-proto turns
// these types into proto/schema.json and proto/proto.gen.ts, and
// scripts/check-generated fails when those files are stale.
//
// # Frames
//
// Every websocket text frame is one JSON [Envelope]: {id, type, payload}.
// The type names the payload (see [Messages]); field names are lowerCamel.
// Receivers ignore unknown fields, so adding a field keeps [Version];
// renaming or removing one, or changing its meaning, bumps it.
//
// # Conversation
//
// The client's first frame is [TypeHello]; the sidecar answers
// [TypeWelcome], or an [TypeError] frame followed by a close with a reason.
// After that the client sends requests with an id of its choosing, unique
// among its requests in flight. Every reply carries the id of its request.
//
//   - A plain request gets exactly one reply frame: its result type (for
//     example [TypeSearchQuery] gets [TypeSearchResult]) or [TypeError].
//   - A streaming request gets zero or more part frames with the request's
//     id, then exactly one final frame whose type ends in ".done" (see
//     [IsDone]) or one [TypeError] frame. Nothing with that id follows the
//     final frame, so a client can forget the request when it arrives.
//   - Pushed events ([TypeIndexProgress], [TypeIndexChanged],
//     [TypeSidecarWarning]) have no id and may arrive at any time after
//     welcome.
//
// [Messages] lists every type with its kind and, for a request, its reply
// type: servers, clients and tests read that table instead of spelling
// pairs out again.
package proto

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Version is the newest protocol version this build speaks, the one hello
// and welcome carry. It changes when a field is renamed or removed or
// changes meaning, never when one is added: an added request is found in
// [Welcome.Requests] instead.
const Version = 1

// MinVersion is the oldest protocol version this build still speaks. The
// plugin comes from Obsidian's updater and the engine from the system's
// package manager, each on its own schedule: two peers talk whenever their
// ranges overlap, at the newest version both speak (see [Negotiate]).
const MinVersion = 1

// Negotiate returns the protocol version a peer that speaks peerMin to
// peerMax talks with this build: the newest one both speak. A peerMin of
// 0 (a peer from before ranges, whose hello names one version) means
// peerMax alone. The error says which side is too old.
func Negotiate(peerMin, peerMax int) (int, error) {
	if peerMin <= 0 || peerMin > peerMax {
		peerMin = peerMax
	}
	v := min(peerMax, Version)
	if v < max(peerMin, MinVersion) {
		if peerMax < MinVersion {
			return 0, fmt.Errorf("protocol %s not supported: this sidecar speaks %s; update the client", span(peerMin, peerMax), span(MinVersion, Version))
		}
		return 0, fmt.Errorf("protocol %s not supported: this sidecar speaks %s; update the sidecar", span(peerMin, peerMax), span(MinVersion, Version))
	}
	return v, nil
}

// span writes a version range as people read it: "1" or "1-3".
func span(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(hi)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// Handshake message types.
const (
	TypeHello   = "hello"
	TypeWelcome = "welcome"
)

// Envelope is one frame on the wire. Payload stays raw so that a receiver
// can read the type first and then decode the payload into the matching Go
// type with [Envelope.Decode].
type Envelope struct {
	// ID ties replies to their request. Requests set it; replies copy it;
	// pushed events and the handshake leave it empty.
	ID string `json:"id,omitempty"`
	// Type names the payload, as noun.verb (search.query) or a bare noun
	// (hello, error).
	Type string `json:"type"`
	// Payload is the message itself, an object whose shape Type decides.
	Payload json.RawMessage `json:"payload,omitempty"`
}

// NewEnvelope encodes payload into an envelope of the given id and type.
func NewEnvelope(id, typ string, payload any) (Envelope, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return Envelope{}, fmt.Errorf("encode %s payload: %w", typ, err)
	}
	return Envelope{ID: id, Type: typ, Payload: raw}, nil
}

// Decode decodes the payload into v. Unknown fields are ignored, so that an
// older peer can read a newer one's messages. A missing payload decodes as
// an empty object.
func (e Envelope) Decode(v any) error {
	raw := e.Payload
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode %s payload: %w", e.Type, err)
	}
	return nil
}

// IsDone reports whether typ, in a frame with the id of a streaming request,
// ends the stream: final stream frames are named noun.done (ask.done). An
// event may be named so too (ingest.done); it has no id.
func IsDone(typ string) bool {
	return strings.HasSuffix(typ, ".done")
}

// Hello is the client's first frame. The sidecar closes the connection when
// it does not arrive in time, carries the wrong token or an unsupported
// protocol.
type Hello struct {
	// Protocol is the newest protocol version the client speaks, [Version]
	// when built against this package.
	Protocol int `json:"protocol"`
	// MinProtocol is the oldest protocol version the client speaks,
	// [MinVersion] when built against this package; 0 (a client from
	// before ranges) means Protocol alone.
	MinProtocol int `json:"minProtocol,omitempty"`
	// Token is the per-launch secret from the sidecar's connection file.
	Token string `json:"token"`
	// Client names the client for logs, e.g. "obsidian-plugin 0.1.0".
	Client string `json:"client"`
	// Nonce, when set, asks the sidecar to prove in Welcome.Proof that it
	// knows the state folder's secret (see Welcome.Proof): a client that
	// will hand over an API key checks it first, since anything may listen
	// on the port a stale connection file names.
	Nonce string `json:"nonce,omitempty"`
}

// Welcome accepts a client after a valid hello.
type Welcome struct {
	// Protocol is the protocol version of this connection: the newest one
	// both sides speak.
	Protocol int `json:"protocol"`
	// Requests lists the request types this sidecar answers, so that a
	// newer client can say which of its features an older sidecar lacks
	// rather than fail on them. A sidecar from before the list sends none:
	// it answers the requests of protocol 1 as first released.
	Requests []string `json:"requests,omitempty"`
	// Version is the sidecar's release version, e.g. "0.1.0".
	Version string `json:"version"`
	// Vault is the absolute path of the vault this sidecar serves, so that
	// a client can check it attached to the right one.
	Vault string `json:"vault,omitempty"`
	// Proof answers Hello.Nonce: hex HMAC-SHA256 of "quire welcome " +
	// nonce, keyed by the secret in the state folder's "secret" file,
	// which only its owner can read and which never crosses the wire.
	Proof string `json:"proof,omitempty"`
}
