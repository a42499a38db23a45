package server

import (
	"context"
	"fmt"

	"github.com/quire-app/quire/proto"
)

// Stream sends the part frames of a streaming reply. Each part carries the
// request's id; the final ".done" frame is what the StreamFunc returns.
type Stream interface {
	// Part queues one part frame. It returns an error once the client has
	// gone, so that a long answer can stop early.
	Part(typ string, payload any) error
}

// StreamFunc answers a streaming request (see proto.Message.Stream): it
// sends parts through st and returns the payload of the final frame, whose
// type is the request's Reply, or an error, which ends the stream with an
// error frame instead. ctx ends when the client disconnects or the server
// shuts down.
type StreamFunc func(ctx context.Context, env proto.Envelope, st Stream) (any, error)

// HandleStream registers f for the streaming request type typ. Later
// issues (ask, ingest) register theirs before Serve; a streaming type
// without a handler is answered with invalid_request.
func (s *Server) HandleStream(typ string, f StreamFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streams == nil {
		s.streams = map[string]StreamFunc{}
	}
	s.streams[typ] = f
}

func (s *Server) stream(typ string) StreamFunc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams[typ]
}

// connStream sends one request's parts on its connection.
type connStream struct {
	c  *conn
	id string
}

func (st connStream) Part(typ string, payload any) error {
	m, ok := proto.Lookup(typ)
	if !ok || m.Kind != proto.KindPart {
		return fmt.Errorf("stream: %s is not a part type", typ)
	}
	data, err := encodeFrame(st.id, typ, payload)
	if err != nil {
		return err
	}
	select {
	case st.c.out <- outFrame{data: data}:
		return nil
	case <-st.c.done:
		return fmt.Errorf("stream %s: client gone", typ)
	}
}
