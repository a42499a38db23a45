package mcp

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrTokenRequired is returned by CheckListen for an address other
// machines can reach when no token is set.
var ErrTokenRequired = errors.New("a token is required off loopback")

// MinTokenLength is the shortest token CheckListen accepts: a guessable
// token on a reachable port would hand the vault to the network.
const MinTokenLength = 16

// CheckListen checks an HTTP listen address (host:port). On a loopback
// host (127.0.0.0/8, ::1, localhost) a token is optional; anywhere else
// the vault is reachable from other machines, so a token of at least
// MinTokenLength characters is required.
func CheckListen(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: want host:port, e.g. 127.0.0.1:8765: %w", addr, err)
	}
	if token != "" && len(token) < MinTokenLength {
		return fmt.Errorf("token is %d characters; use at least %d", len(token), MinTokenLength)
	}
	if Loopback(host) {
		return nil
	}
	if token == "" {
		return fmt.Errorf("%s is reachable from other machines: %w (--token or QUIRE_MCP_TOKEN)", addr, ErrTokenRequired)
	}
	return nil
}

// Loopback reports whether host names this machine only. An empty host
// (":8765") listens on every interface, so it is not loopback.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NewHTTPHandler serves s over Streamable HTTP. When token is not empty,
// every request must carry "Authorization: Bearer <token>"; others get
// 401 before they reach the server. A request with an Origin header (a
// browser's) is refused with 403 unless AllowedOrigin accepts it or it is
// listed in origins: the MCP specification asks servers to validate
// Origin, so that a web page cannot reach a local server (DNS
// rebinding).
func NewHTTPHandler(s *sdk.Server, token string, origins ...string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !AllowedOrigin(o, origins) {
			http.Error(w, "origin not allowed: "+o, http.StatusForbidden)
			return
		}
		if token != "" {
			got := []byte(r.Header.Get("Authorization"))
			if subtle.ConstantTimeCompare(got, want) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="quire"`)
				http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// AllowedOrigin reports whether a browser origin may call the server: an
// http(s) origin on a loopback host (a local tool such as the MCP
// Inspector), or one listed exactly in extra. "null" and every other
// origin are refused.
func AllowedOrigin(origin string, extra []string) bool {
	for _, o := range extra {
		if strings.EqualFold(strings.TrimRight(o, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" || u.User != nil {
		return false
	}
	return Loopback(u.Hostname())
}
