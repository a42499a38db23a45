// Package fetch downloads a web page or PDF for ingest without letting a
// URL reach anything but the public internet.
//
// A URL from the clipboard is untrusted: it may name the machine itself, the
// home router, a cloud metadata service, or a public name whose DNS answer
// points inside. The guard therefore allows http and https only, refuses
// user info, reads numeric hosts the way a browser does (2130706433,
// 0x7f000001, 017700000001, 127.1 are all 127.0.0.1), resolves a name once,
// refuses the host if ANY address it resolves to is not public unicast (see
// Check), and connects to one of exactly those checked addresses; the TLS
// name and Host header stay the URL's. Redirects are followed by hand, each
// one checked the same way, at most MaxRedirects. The body is capped in size,
// the whole fetch in time, and the content type limited to HTML, PDF and
// text (sniffed when the server does not say).
//
// Tests reach local servers through Options.Dialer and Options.Resolver (a
// resolver that answers a public address, a dialer that connects to the
// test listener): the guard itself has no switch to turn it off.
package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The kinds of failure, matched with errors.Is against any error Get
// returns. The *Error carrying them says more (address, type, size).
var (
	ErrRefused     = errors.New("refused")            // the guard refused the URL or an address
	ErrURL         = errors.New("invalid url")        // the URL or its host cannot be parsed
	ErrRedirects   = errors.New("too many redirects") // more than MaxRedirects
	ErrTooLarge    = errors.New("too large")          // the body is over MaxBytes
	ErrContentType = errors.New("unsupported content type")
	ErrStatus      = errors.New("bad status") // a status other than 2xx, or a redirect without Location
	ErrTimeout     = errors.New("timed out")  // Timeout elapsed
)

// Error is the error Get returns. It reads like a path:
//
//	fetch http://a.example/: redirect to http://10.0.0.5/: refused: 10.0.0.5 is a private address
type Error struct {
	URL    string     // the URL asked for
	At     string     // the URL that failed, when redirects led away from URL
	Kind   error      // one of the Err* sentinels, or nil for a network error
	Addr   netip.Addr // the refused address, if any
	Detail string     // what a user reads after the kind
	Err    error      // the underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.URL != "" {
		b.WriteString("fetch " + e.URL + ": ")
	}
	if e.At != "" && e.At != e.URL {
		b.WriteString("redirect to " + e.At + ": ")
	}
	parts := []string{}
	if e.Kind != nil {
		parts = append(parts, e.Kind.Error())
	}
	if e.Detail != "" {
		parts = append(parts, e.Detail)
	}
	if e.Err != nil {
		parts = append(parts, e.Err.Error())
	}
	b.WriteString(strings.Join(parts, ": "))
	return b.String()
}

// Unwrap exposes Kind and Err to errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.Kind, e.Err} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// Resolver looks up a host's addresses; *net.Resolver has this method.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// DefaultTypes are the media types fetched when Options.AllowedTypes is
// empty: HTML, PDF and plain text or Markdown.
var DefaultTypes = []string{
	"text/html", "application/xhtml+xml", "application/pdf",
	"text/plain", "text/markdown", "text/x-markdown",
}

// Options configures a Client. The zero value of each field means its
// default.
type Options struct {
	MaxBytes     int64         // body size cap in bytes; default 32 MiB
	Timeout      time.Duration // limit for the whole Get, redirects and body included; default 60 s
	MaxRedirects int           // redirects followed; default 5, negative for none
	AllowedTypes []string      // media types accepted; default DefaultTypes

	// Dialer opens the TCP connection to a checked "ip:port". Default: a
	// net.Dialer with a 10 s connect timeout that checks the address once
	// more as it connects (net.Dialer.Control).
	Dialer func(ctx context.Context, network, addr string) (net.Conn, error)
	// Resolver resolves host names. Default: net.DefaultResolver.
	Resolver Resolver
	// TLSConfig is cloned for https; its ServerName is always the URL's
	// host. Default: the system roots.
	TLSConfig *tls.Config
	// UserAgent is sent with every request. Default: "Quire".
	UserAgent string
}

// Client fetches URLs through the guard. It is safe for concurrent use.
type Client struct {
	opts Options
}

// New returns a Client with opts, defaults filled in.
func New(opts Options) *Client {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 32 << 20
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	switch {
	case opts.MaxRedirects == 0:
		opts.MaxRedirects = 5
	case opts.MaxRedirects < 0:
		opts.MaxRedirects = 0
	}
	if len(opts.AllowedTypes) == 0 {
		opts.AllowedTypes = DefaultTypes
	}
	if opts.Dialer == nil {
		opts.Dialer = (&net.Dialer{Timeout: 10 * time.Second, Control: dialControl}).DialContext
	}
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "Quire"
	}
	return &Client{opts: opts}
}

// dialControl is the default dialer's last look, at the address the socket
// is about to connect to: the fetch dials only addresses it has checked, so
// this refuses nothing today, but a later change that handed the dialer a
// name (which the dialer would resolve again, and DNS may answer
// differently the second time) could not reach a private address.
func dialControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &Error{Kind: ErrRefused, Detail: fmt.Sprintf("dial %s: not an address", address)}
	}
	return Check(ap.Addr().Unmap())
}

// Result is a fetched document.
type Result struct {
	URL         string      // the URL asked for
	FinalURL    string      // the URL the body came from, after redirects
	Redirects   []string    // each redirect target followed, in order
	StatusCode  int         // 2xx
	ContentType string      // media type, lowercase, without parameters
	Charset     string      // the charset parameter of Content-Type, if any
	Sniffed     bool        // ContentType was detected from the body
	Header      http.Header // the final response's headers
	Addr        netip.Addr  // the address the final response came from
	Body        []byte
}

// Get fetches rawURL through the guard. Every error is an *Error; match its
// kind with errors.Is (ErrRefused, ErrTooLarge, …).
func (c *Client) Get(ctx context.Context, rawURL string) (*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	res := &Result{URL: rawURL}
	cur := rawURL
	var base *url.URL
	for hop := 0; ; hop++ {
		fail := func(kind error, addr netip.Addr, detail string, err error) (*Result, error) {
			if err != nil && ctx.Err() != nil {
				// Whatever broke, the clock or the caller broke it first.
				kind, err = c.ctxKind(ctx)
			}
			e := &Error{URL: rawURL, Kind: kind, Addr: addr, Detail: detail, Err: err}
			if hop > 0 {
				e.At = cur
			}
			return nil, e
		}
		u, err := parseURL(base, cur)
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				return fail(e.Kind, e.Addr, e.Detail, nil)
			}
			return fail(ErrURL, netip.Addr{}, "", err)
		}
		cur = u.String()
		addrs, err := c.resolve(ctx, u)
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				return fail(e.Kind, e.Addr, e.Detail, nil)
			}
			return fail(nil, netip.Addr{}, "resolve "+u.Hostname(), err)
		}
		resp, addr, err := c.roundTrip(ctx, u, addrs)
		if err != nil {
			return fail(nil, netip.Addr{}, "", err)
		}
		switch resp.StatusCode {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
			http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			loc := resp.Header.Get("Location")
			resp.Body.Close()
			if loc == "" {
				return fail(ErrStatus, netip.Addr{}, fmt.Sprintf("%d without Location", resp.StatusCode), nil)
			}
			if hop >= c.opts.MaxRedirects {
				return fail(ErrRedirects, netip.Addr{}, fmt.Sprintf("more than %d", c.opts.MaxRedirects), nil)
			}
			next, err := u.Parse(loc)
			if err != nil {
				return fail(ErrURL, netip.Addr{}, "redirect Location", err)
			}
			base, cur = u, next.String()
			res.Redirects = append(res.Redirects, cur)
			continue
		}
		defer resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return fail(ErrStatus, netip.Addr{}, resp.Status, nil)
		}
		res.FinalURL, res.StatusCode, res.Header, res.Addr = cur, resp.StatusCode, resp.Header, addr
		if resp.ContentLength > c.opts.MaxBytes {
			return fail(ErrTooLarge, netip.Addr{}, fmt.Sprintf("%d bytes, limit %d", resp.ContentLength, c.opts.MaxBytes), nil)
		}
		if err := c.readBody(resp, res); err != nil {
			var e *Error
			if errors.As(err, &e) {
				return fail(e.Kind, netip.Addr{}, e.Detail, nil)
			}
			return fail(nil, netip.Addr{}, "read body", err)
		}
		return res, nil
	}
}

// ctxKind says whether a context error is the fetch's own time limit or the
// caller giving up.
func (c *Client) ctxKind(ctx context.Context) (error, error) {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ErrTimeout, fmt.Errorf("limit %s", c.opts.Timeout)
	}
	return nil, ctx.Err()
}

// parseURL parses raw (relative to base, for a redirect) and applies the
// rules that need no lookup: scheme, user info, host spelling.
func parseURL(base *url.URL, raw string) (*url.URL, error) {
	var u *url.URL
	var err error
	if base != nil {
		u, err = base.Parse(raw)
	} else {
		u, err = url.Parse(strings.TrimSpace(raw))
	}
	if err != nil {
		return nil, err
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, &Error{Kind: ErrRefused, Detail: fmt.Sprintf("scheme %q is not http or https", u.Scheme)}
	}
	if u.User != nil {
		return nil, &Error{Kind: ErrRefused, Detail: "the URL carries a user name or password"}
	}
	if u.Opaque != "" || u.Host == "" {
		return nil, &Error{Kind: ErrURL, Detail: "no host"}
	}
	if p := u.Port(); p != "" {
		if n, err := parsePort(p); err != nil || n == 0 {
			return nil, &Error{Kind: ErrURL, Detail: fmt.Sprintf("port %q", p)}
		}
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

func parsePort(p string) (int, error) {
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("not a number")
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return 0, fmt.Errorf("out of range")
		}
	}
	return n, nil
}

// resolve turns u's host into the addresses the fetch may connect to:
// the literal address, or every address the name resolves to, each checked.
// One refused address refuses the host, so a DNS answer that mixes a public
// and a private address cannot steer the connection inside.
func (c *Client) resolve(ctx context.Context, u *url.URL) ([]netip.Addr, error) {
	name, addr, isIP, err := parseHost(u.Hostname())
	if err != nil {
		return nil, &Error{Kind: ErrURL, Detail: err.Error()}
	}
	if isIP {
		if err := Check(addr); err != nil {
			return nil, err
		}
		return []netip.Addr{addr.Unmap()}, nil
	}
	if why := localName(name); why != "" {
		return nil, &Error{Kind: ErrRefused, Detail: why}
	}
	ips, err := c.opts.Resolver.LookupIPAddr(ctx, name)
	if err != nil {
		return nil, err
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("no addresses")
	}
	addrs := make([]netip.Addr, 0, len(ips))
	for _, ip := range ips {
		// net.IP keeps IPv4 in 16 bytes, so an IPv4 answer and an IPv4-mapped
		// one look alike; both are checked and dialled as IPv4.
		a, ok := netip.AddrFromSlice(ip.IP)
		a = a.Unmap()
		if !ok {
			return nil, &Error{Kind: ErrRefused, Detail: fmt.Sprintf("%s resolves to a malformed address %v", name, ip.IP)}
		}
		if ip.Zone != "" {
			a = a.WithZone(ip.Zone)
		}
		if why := reason(a); why != "" {
			return nil, &Error{Kind: ErrRefused, Addr: a, Detail: fmt.Sprintf("%s resolves to %s, %s", name, a, why)}
		}
		addrs = append(addrs, a)
	}
	return addrs, nil
}

// roundTrip sends one GET for u over a connection to one of addrs. A new
// transport per request keeps a pooled connection from one host's checked
// address from serving another request.
func (c *Client) roundTrip(ctx context.Context, u *url.URL, addrs []netip.Addr) (*http.Response, netip.Addr, error) {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	var used netip.Addr
	tr := &http.Transport{
		Proxy: nil, // a proxy would connect to the name itself, unchecked
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var last error
			for _, a := range addrs {
				if err := Check(a); err != nil { // a second look costs nothing
					return nil, err
				}
				conn, err := c.opts.Dialer(ctx, network, net.JoinHostPort(a.String(), port))
				if err == nil {
					used = a
					return conn, nil
				}
				last = err
			}
			return nil, last
		},
		TLSClientConfig:        c.opts.TLSConfig.Clone(),
		DisableKeepAlives:      true,
		MaxResponseHeaderBytes: 1 << 20,
	}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, netip.Addr{}, err
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.1")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return nil, netip.Addr{}, err
	}
	return resp, used, nil
}

// readBody checks the content type (sniffing the first 512 bytes when the
// header is missing or says only application/octet-stream) and reads at most
// MaxBytes.
func (c *Client) readBody(resp *http.Response, res *Result) error {
	mt, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	mt = strings.ToLower(mt)
	var head []byte
	if mt == "" || mt == "application/octet-stream" {
		head = make([]byte, 512)
		n, err := io.ReadFull(resp.Body, head)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return err
		}
		head = head[:n]
		mt, params, _ = mime.ParseMediaType(http.DetectContentType(head))
		res.Sniffed = true
	}
	if !slices.Contains(c.opts.AllowedTypes, mt) {
		detail := mt
		if res.Sniffed {
			detail += " (sniffed)"
		}
		return &Error{Kind: ErrContentType, Detail: detail + " is not " + c.typeNames()}
	}
	res.ContentType, res.Charset = mt, params["charset"]
	body, err := io.ReadAll(io.LimitReader(io.MultiReader(bytes.NewReader(head), resp.Body), c.opts.MaxBytes+1))
	if err != nil {
		return err
	}
	if int64(len(body)) > c.opts.MaxBytes {
		return &Error{Kind: ErrTooLarge, Detail: fmt.Sprintf("over %d bytes", c.opts.MaxBytes)}
	}
	res.Body = body
	return nil
}

func (c *Client) typeNames() string {
	if slices.Equal(c.opts.AllowedTypes, DefaultTypes) {
		return "HTML, PDF or text"
	}
	return strings.Join(c.opts.AllowedTypes, ", ")
}
