package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Sentinel errors the caller branches on with errors.Is; every error a
// Client or Embedder returns for a failed call is an *Error that matches
// exactly one of them. Their text is the protocol code the server can send.
var (
	// ErrNotConfigured: no provider or no model is set; ask falls back to
	// extracted sentences.
	ErrNotConfigured = errors.New("model_not_configured")
	// ErrTimeout: the call took longer than Config.Timeout (or the caller's
	// deadline). It is about this question, not the model's health; it
	// also matches context.DeadlineExceeded.
	ErrTimeout = errors.New("model_timeout")
	// ErrUnavailable: nothing answers at the endpoint (connection refused,
	// host not found, connection cut).
	ErrUnavailable = errors.New("model_unavailable")
	// ErrAuth: the server refused the key (401/403) or none is set.
	ErrAuth = errors.New("model_auth")
	// ErrModelNotFound: the server does not have the model.
	ErrModelNotFound = errors.New("model_not_found")
	// ErrServer: the server answered with another error (5xx, 429, a bad
	// request) or with something that is not its API.
	ErrServer = errors.New("model_error")
	// ErrBadJSON: JSON output was asked for and the reply is not JSON, even
	// after one retry.
	ErrBadJSON = errors.New("model_bad_json")
)

// Error is a failed model call: which kind (one of the sentinels), what
// happened, and what the user can do about it.
type Error struct {
	Kind     error  // one of the sentinel errors
	Endpoint string // the base URL called
	Model    string
	Status   int    // the HTTP status, when there was one
	Detail   string // what happened, for people
	Hint     string // what to do, for people; may be empty
	Err      error  // the underlying error, if any
}

// Error reads "kind: detail (hint)", e.g. "model_unavailable:
// http://127.0.0.1:11434 refused the connection (start Ollama (ollama serve)
// or fix model.endpoint)".
func (e *Error) Error() string {
	s := e.Kind.Error() + ": " + e.Detail
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrTimeout) and friends work.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap exposes the cause, e.g. context.DeadlineExceeded for ErrTimeout.
func (e *Error) Unwrap() error { return e.Err }

// exchange records what the transport saw during one call. langchaingo
// turns HTTP statuses and transport errors into strings (the OpenAI client
// even replaces a deadline error with a new one), so the cause is taken at
// the transport, where it is still typed.
type exchange struct {
	mu       sync.Mutex
	status   int
	body     []byte
	location string // a redirect's target
	err      error
}

// redirected reports whether the server answered with a redirect.
func (x *exchange) redirected() bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return isRedirect(x.status)
}

func isRedirect(status int) bool { return status >= 300 && status < 400 }

type exchangeKey struct{}

func withExchange(ctx context.Context) (context.Context, *exchange) {
	x := &exchange{}
	return context.WithValue(ctx, exchangeKey{}, x), x
}

// recorder is the http.RoundTripper every client uses.
type recorder struct{ base http.RoundTripper }

func (t recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	x, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if x == nil {
		return resp, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if err != nil {
		x.err = err
		return resp, err
	}
	if isRedirect(resp.StatusCode) {
		x.status, x.location = resp.StatusCode, resp.Header.Get("Location")
	}
	if resp.StatusCode >= 400 {
		// Keep the body for the message, and hand the client a copy.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		x.status, x.body = resp.StatusCode, body
	}
	return resp, nil
}

func newHTTPClient() *http.Client {
	// No http.Client.Timeout: the call's context carries the deadline, so
	// that a slow stream and a slow first byte end the same way.
	return &http.Client{
		Transport: recorder{base: http.DefaultTransport.(*http.Transport).Clone()},
		// A redirect is never followed: Go would post the prompt (and
		// Anthropic's x-api-key, which it does not strip) again to
		// whatever address the endpoint names, and a loopback endpoint,
		// trusted with private passages, could name a remote one. The
		// 3xx comes back as the answer and failure makes it an error.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// failure turns whatever went wrong in one call into an *Error. ctx is the
// call's own context (with Config.Timeout applied); err is what the client
// library returned; x is what the transport saw.
func (c Config) failure(ctx context.Context, start time.Time, model string, x *exchange, err error) error {
	e := &Error{Endpoint: c.BaseURL(), Model: model, Err: err}
	x.mu.Lock()
	status, body, location, terr := x.status, x.body, x.location, x.err
	x.mu.Unlock()

	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || isNetTimeout(terr):
		e.Kind, e.Err = ErrTimeout, context.DeadlineExceeded
		who := model + " at " + e.Endpoint
		if model == "" {
			who = e.Endpoint
		}
		e.Detail = fmt.Sprintf("%s gave no complete answer in %s", who, time.Since(start).Round(time.Millisecond))
		e.Hint = "the model may be busy or loading; raise model.timeout if it is slow"
	case errors.Is(ctx.Err(), context.Canceled):
		// The caller gave up: not the model's fault, so no *Error.
		return context.Canceled
	case isRedirect(status):
		e.Status, e.Kind = status, ErrServer
		e.Detail = fmt.Sprintf("%s answered HTTP %d, a redirect to %q: Quire sends no prompt on to another address", e.Endpoint, status, location)
		e.Hint = "set model.endpoint to the model server's own address"
	case status != 0:
		e.Status = status
		msg := errorMessage(body)
		switch {
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			e.Kind = ErrAuth
			e.Detail = fmt.Sprintf("%s refused the API key (HTTP %d: %s)", e.Endpoint, status, msg)
			e.Hint = c.keyHint()
		case status == http.StatusNotFound && strings.Contains(strings.ToLower(msg), "model"):
			e.Kind = ErrModelNotFound
			e.Detail = fmt.Sprintf("%s has no model %q (%s)", e.Endpoint, model, msg)
			if c.Provider == Ollama {
				e.Hint = "run: ollama pull " + model
			} else {
				e.Hint = "check model.model against the models the server lists"
			}
		case status == http.StatusNotFound:
			e.Kind = ErrServer
			e.Detail = fmt.Sprintf("%s answered 404 (%s)", e.Endpoint, msg)
			e.Hint = "check model.endpoint and model.provider"
		default:
			e.Kind = ErrServer
			e.Detail = fmt.Sprintf("%s answered HTTP %d: %s", e.Endpoint, status, msg)
			switch {
			case status == http.StatusTooManyRequests:
				e.Hint = "rate limited: wait and ask again"
			case status == http.StatusServiceUnavailable || status == 529:
				e.Hint = "the server is busy or still loading: ask again shortly"
			case status >= 500:
				e.Hint = "the model server failed; its log says why"
			}
		}
	case terr != nil:
		e.Kind, e.Err = ErrUnavailable, terr
		var dns *net.DNSError
		switch {
		case errors.Is(terr, syscall.ECONNREFUSED):
			e.Detail = e.Endpoint + " refused the connection"
		case errors.As(terr, &dns):
			e.Detail = fmt.Sprintf("%s: host %s not found", e.Endpoint, dns.Name)
		default:
			e.Detail = fmt.Sprintf("%s: %v", e.Endpoint, terr)
		}
		e.Hint = c.startHint()
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
		e.Kind = ErrUnavailable
		e.Detail = e.Endpoint + " cut the connection mid-answer"
	default:
		e.Kind = ErrServer
		e.Detail = fmt.Sprintf("%s: %v", e.Endpoint, err)
	}
	return e
}

func isNetTimeout(err error) bool {
	var ne net.Error
	return err != nil && errors.As(err, &ne) && ne.Timeout()
}

// errorMessage pulls the message out of an error body in any of the three
// providers' shapes, or returns the body's start.
func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"` // vLLM: {"object":"error","message":"..."}
	}
	if json.Unmarshal(body, &v) == nil && len(v.Error) == 0 && v.Message != "" {
		return v.Message
	}
	if json.Unmarshal(body, &v) == nil && len(v.Error) > 0 {
		var s string
		if json.Unmarshal(v.Error, &s) == nil {
			return s // Ollama: {"error": "..."}
		}
		var o struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(v.Error, &o) == nil && o.Message != "" {
			return o.Message // OpenAI and Anthropic: {"error": {"message": "..."}}
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		s = "no message"
	}
	return s
}

func (c Config) keyHint() string {
	if c.APIKey != "" {
		return "the key in Quire's settings was refused; replace it"
	}
	return "set " + c.KeyEnv() + " to a valid key, or enter one in Quire's settings"
}

func (c Config) startHint() string {
	switch {
	case c.Provider == Ollama:
		return "start Ollama (ollama serve) or fix model.endpoint"
	case c.Local():
		return "start the model server or fix model.endpoint"
	}
	return "check the network and model.endpoint"
}
