package proto

// Kind says what part a message type plays in a conversation.
type Kind string

// Message kinds.
const (
	// KindHandshake: hello and welcome, exchanged once per connection.
	KindHandshake Kind = "handshake"
	// KindRequest: sent by a client with an id; answered by its Reply type
	// (or error).
	KindRequest Kind = "request"
	// KindReply: the single answer to a plain request.
	KindReply Kind = "reply"
	// KindPart: one of several frames answering a streaming request.
	KindPart Kind = "part"
	// KindDone: the final frame of a stream; its type ends in ".done".
	KindDone Kind = "done"
	// KindEvent: pushed by the sidecar without an id.
	KindEvent Kind = "event"
)

// Message describes one message type.
type Message struct {
	// Type is the envelope's type.
	Type string
	// Kind is the part the message plays.
	Kind Kind
	// Reply is, for a request or hello, the type that answers it: a reply
	// type for a plain request, the ".done" type for a streaming one.
	Reply string
	// Stream is true for a request answered by part frames and a done frame.
	Stream bool
	// Payload is a zero value of the payload's Go type.
	Payload any
}

// Messages lists every message type of this protocol version. Its order is
// the order of the generated schema and of the TypeScript table.
var Messages = []Message{
	{Type: TypeHello, Kind: KindHandshake, Reply: TypeWelcome, Payload: Hello{}},
	{Type: TypeWelcome, Kind: KindHandshake, Payload: Welcome{}},
	{Type: TypeError, Kind: KindReply, Payload: Error{}},

	{Type: TypeStatusGet, Kind: KindRequest, Reply: TypeStatusResult, Payload: StatusGet{}},
	{Type: TypeStatusResult, Kind: KindReply, Payload: StatusResult{}},

	{Type: TypeSearchQuery, Kind: KindRequest, Reply: TypeSearchResult, Payload: SearchQuery{}},
	{Type: TypeSearchResult, Kind: KindReply, Payload: SearchResult{}},
	{Type: TypeRelatedQuery, Kind: KindRequest, Reply: TypeRelatedResult, Payload: RelatedQuery{}},
	{Type: TypeRelatedResult, Kind: KindReply, Payload: RelatedResult{}},

	{Type: TypeAskQuery, Kind: KindRequest, Reply: TypeAskDone, Stream: true, Payload: AskQuery{}},
	{Type: TypeAskDelta, Kind: KindPart, Payload: AskDelta{}},
	{Type: TypeAskDone, Kind: KindDone, Payload: AskDone{}},
	{Type: TypeAnswerSave, Kind: KindRequest, Reply: TypeAnswerResult, Payload: AnswerSave{}},
	{Type: TypeAnswerResult, Kind: KindReply, Payload: AnswerResult{}},

	{Type: TypeNoteGet, Kind: KindRequest, Reply: TypeNoteResult, Payload: NoteGet{}},
	{Type: TypeNoteResult, Kind: KindReply, Payload: NoteResult{}},
	{Type: TypeGrepQuery, Kind: KindRequest, Reply: TypeGrepResult, Payload: GrepQuery{}},
	{Type: TypeGrepResult, Kind: KindReply, Payload: GrepResult{}},
	{Type: TypeSourcesList, Kind: KindRequest, Reply: TypeSourcesResult, Payload: SourcesList{}},
	{Type: TypeSourcesResult, Kind: KindReply, Payload: SourcesResult{}},
	{Type: TypeTOCGet, Kind: KindRequest, Reply: TypeTOCResult, Payload: TOCGet{}},
	{Type: TypeTOCResult, Kind: KindReply, Payload: TOCResult{}},

	{Type: TypeIndexRebuild, Kind: KindRequest, Reply: TypeIndexResult, Payload: IndexRebuild{}},
	{Type: TypeIndexResult, Kind: KindReply, Payload: IndexResult{}},

	{Type: TypeIngestAdd, Kind: KindRequest, Reply: TypeIngestResult, Payload: IngestAdd{}},
	{Type: TypeIngestResult, Kind: KindReply, Payload: IngestResult{}},
	{Type: TypeQueueList, Kind: KindRequest, Reply: TypeQueueResult, Payload: QueueList{}},
	{Type: TypeQueueResult, Kind: KindReply, Payload: QueueResult{}},

	{Type: TypeLintRun, Kind: KindRequest, Reply: TypeLintResult, Payload: LintRun{}},
	{Type: TypeLintResult, Kind: KindReply, Payload: LintResult{}},

	{Type: TypeEvalRun, Kind: KindRequest, Reply: TypeEvalResult, Payload: EvalRun{}},
	{Type: TypeEvalResult, Kind: KindReply, Payload: EvalResult{}},

	{Type: TypeConfigGet, Kind: KindRequest, Reply: TypeConfigResult, Payload: ConfigGet{}},
	{Type: TypeConfigSet, Kind: KindRequest, Reply: TypeConfigResult, Payload: ConfigSet{}},
	{Type: TypeConfigResult, Kind: KindReply, Payload: ConfigResult{}},

	{Type: TypeShutdown, Kind: KindRequest, Reply: TypeShutdownResult, Payload: Shutdown{}},
	{Type: TypeShutdownResult, Kind: KindReply, Payload: ShutdownResult{}},

	{Type: TypeIndexProgress, Kind: KindEvent, Payload: IndexProgress{}},
	{Type: TypeIndexChanged, Kind: KindEvent, Payload: IndexChanged{}},
	{Type: TypeSidecarWarning, Kind: KindEvent, Payload: SidecarWarning{}},
	{Type: TypeIngestProgress, Kind: KindEvent, Payload: IngestProgress{}},
	{Type: TypeIngestDone, Kind: KindEvent, Payload: IngestDone{}},
	{Type: TypeIngestFailed, Kind: KindEvent, Payload: IngestFailed{}},
	{Type: TypeNoteWritten, Kind: KindEvent, Payload: NoteWritten{}},
	{Type: TypeReviewCreated, Kind: KindEvent, Payload: ReviewCreated{}},
}

// Lookup returns the description of a message type, and false for a type
// this version does not know (which the sidecar answers with
// invalid_request).
func Lookup(typ string) (Message, bool) {
	for _, m := range Messages {
		if m.Type == typ {
			return m, true
		}
	}
	return Message{}, false
}

// Requests lists the request types of [Messages], in its order: what a
// sidecar built against this package answers, sent in [Welcome.Requests].
func Requests() []string {
	var out []string
	for _, m := range Messages {
		if m.Kind == KindRequest {
			out = append(out, m.Type)
		}
	}
	return out
}
