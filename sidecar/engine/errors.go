package engine

import "fmt"

// Kind is a class of error that a front end shows as it is, or maps to a
// code of its own (the server to the protocol's).
type Kind string

// Error kinds.
const (
	Invalid          Kind = "invalid"           // the request cannot be answered as asked
	NotFound         Kind = "not_found"         // the note or answer does not exist
	TooLarge         Kind = "too_large"         // over a size limit
	NotReady         Kind = "not_ready"         // this engine cannot do it (no ingest queue)
	Duplicate        Kind = "duplicate"         // the source was ingested already
	ModelUnavailable Kind = "model_unavailable" // a model is needed and none is configured
)

// Error is an error whose message is meant for the user as it is.
type Error struct {
	Kind    Kind
	Message string
}

func (e *Error) Error() string { return e.Message }

func errorf(k Kind, format string, a ...any) *Error {
	return &Error{Kind: k, Message: fmt.Sprintf(format, a...)}
}
