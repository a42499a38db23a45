package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/quire-app/quire/proto"
)

type countReq struct {
	N    int  `json:"n"`
	Hang bool `json:"hang"`
}
type countPart struct {
	I int `json:"i"`
}
type countDone struct {
	Total int `json:"total"`
}

// withTestStream adds a streaming message family to the protocol table
// for one test, so that the stream machinery is checked apart from ask.
func withTestStream(t *testing.T) {
	saved := proto.Messages
	proto.Messages = append(append([]proto.Message{}, saved...),
		proto.Message{Type: "test.count", Kind: proto.KindRequest, Reply: "test.done", Stream: true, Payload: countReq{}},
		proto.Message{Type: "test.part", Kind: proto.KindPart, Payload: countPart{}},
		proto.Message{Type: "test.done", Kind: proto.KindDone, Payload: countDone{}})
	t.Cleanup(func() { proto.Messages = saved })
}

func TestStream(t *testing.T) {
	withTestStream(t)
	h := start(t, notes)
	hanging, cancelled := make(chan struct{}), make(chan struct{})
	h.srv.HandleStream("test.count", func(ctx context.Context, env proto.Envelope, st Stream) (any, error) {
		var q countReq
		if err := env.Decode(&q); err != nil {
			return nil, err
		}
		if q.Hang {
			close(hanging)
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		}
		if q.N < 0 {
			return nil, &proto.Error{Code: proto.CodeInvalidRequest, Message: "n must not be negative"}
		}
		for i := range q.N {
			if err := st.Part("test.part", countPart{I: i}); err != nil {
				return nil, err
			}
		}
		return countDone{Total: q.N}, nil
	})
	c := h.dial()

	// Several streams and plain requests at once: each stream's parts
	// arrive in order, under its own id, ended by its done frame.
	errs := make(chan error, 4)
	for _, n := range []int{0, 1, 500} {
		go func() {
			var got []int
			var done countDone
			err := c.Stream(t.Context(), "test.count", countReq{N: n}, func(env proto.Envelope) error {
				var p countPart
				if err := env.Decode(&p); err != nil {
					return err
				}
				got = append(got, p.I)
				return nil
			}, &done)
			if err == nil && done.Total != n {
				err = errors.New("wrong total")
			}
			for i, v := range got {
				if v != i && err == nil {
					err = errors.New("parts out of order")
				}
			}
			if err == nil && len(got) != n {
				err = errors.New("parts missing")
			}
			errs <- err
		}()
	}
	go func() {
		_, err := c.Status(t.Context())
		errs <- err
	}()
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}

	// An error ends the stream.
	err := c.Stream(t.Context(), "test.count", countReq{N: -1}, func(proto.Envelope) error { return nil }, &countDone{})
	wantCode(t, err, proto.CodeInvalidRequest)

	// A caller that stops listening does not wedge the connection.
	stop := errors.New("enough")
	err = c.Stream(t.Context(), "test.count", countReq{N: 1000}, func(proto.Envelope) error { return stop }, &countDone{})
	if !errors.Is(err, stop) {
		t.Errorf("stopped stream: %v, want %v", err, stop)
	}
	if _, err := c.Status(t.Context()); err != nil {
		t.Errorf("after a stopped stream: %v", err)
	}

	// A plain call cannot be used for a stream, nor the reverse.
	if err := c.Call(t.Context(), "test.count", countReq{}, &countDone{}); err == nil {
		t.Error("Call on a streaming type: got nil error")
	}

	// The handler's context ends when its client disconnects.
	other := h.dial()
	go other.Stream(context.Background(), "test.count", countReq{Hang: true}, func(proto.Envelope) error { return nil }, &countDone{})
	<-hanging
	other.Close()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Error("stream handler still running after its client left")
	}
}
