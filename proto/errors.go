package proto

// TypeError is the reply to a request that failed, and the frame sent before
// the sidecar closes a connection it refuses.
const TypeError = "error"

// ErrorCode is one of a closed set of failure kinds that a client can branch
// on. The message carries the detail for people.
type ErrorCode string

// Error codes. A client that meets a code it does not know treats it as
// [CodeInternal].
const (
	// CodeInvalidRequest: malformed JSON, an unknown type, or a payload
	// that does not fit its type.
	CodeInvalidRequest ErrorCode = "invalid_request"
	// CodeUnauthorized: missing or wrong token, or a request before hello.
	CodeUnauthorized ErrorCode = "unauthorized"
	// CodeUnsupportedVersion: the hello's protocol is one the sidecar does
	// not speak.
	CodeUnsupportedVersion ErrorCode = "unsupported_version"
	// CodeNotFound: the named note or item is not in the index.
	CodeNotFound ErrorCode = "not_found"
	// CodeNotReady: the sidecar is starting, shutting down, or has no index
	// yet; the client may retry later.
	CodeNotReady ErrorCode = "not_ready"
	// CodeModelUnavailable: the embedder or language model does not answer.
	CodeModelUnavailable ErrorCode = "model_unavailable"
	// CodeTooLarge: the frame or an input in it is over a size limit.
	CodeTooLarge ErrorCode = "too_large"
	// CodeDuplicate: ingest.add for a source already ingested or queued.
	CodeDuplicate ErrorCode = "duplicate"
	// CodeInternal: anything else; the sidecar's log has the detail.
	CodeInternal ErrorCode = "internal"
)

// ErrorCodes lists every error code, in a fixed order; the generator turns
// it into the schema's enum.
var ErrorCodes = []ErrorCode{
	CodeInvalidRequest,
	CodeUnauthorized,
	CodeUnsupportedVersion,
	CodeNotFound,
	CodeNotReady,
	CodeModelUnavailable,
	CodeTooLarge,
	CodeDuplicate,
	CodeInternal,
}

// Valid reports whether c is one of [ErrorCodes].
func (c ErrorCode) Valid() bool {
	for _, k := range ErrorCodes {
		if c == k {
			return true
		}
	}
	return false
}

// Error is the payload of an error frame.
type Error struct {
	// Code is the kind of failure, from [ErrorCodes].
	Code ErrorCode `json:"code"`
	// Message is a short sentence for people, e.g. "note not indexed:
	// Daily/2024-01-01.md".
	Message string `json:"message"`
}

// Error lets an *Error travel as a Go error on the client side.
func (e *Error) Error() string {
	return string(e.Code) + ": " + e.Message
}
