package ingest

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// ErrSource is wrapped by every error about a source that cannot be queued
// at all: an empty string, an unparsable URL, a scheme other than http or
// https.
var ErrSource = errors.New("unsupported source")

// Key returns the de-duplication key of a source: the normalised URL for an
// http or https URL (see NormalizeURL), or "file:" and the cleaned absolute
// path for anything else that does not look like a URL. Two sources with the
// same key are the same document as far as the queue is concerned.
func Key(source string) (string, error) {
	s := strings.TrimSpace(source)
	if s == "" {
		return "", fmt.Errorf("key: %w: empty source", ErrSource)
	}
	// A Windows path such as C:\x parses as a URL with scheme "c", so only
	// strings with "://" are treated as URLs.
	if i := strings.Index(s, "://"); i > 0 && isScheme(s[:i]) {
		return NormalizeURL(s)
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return "", fmt.Errorf("key %s: %w", s, err)
	}
	return "file:" + filepath.Clean(abs), nil
}

func isScheme(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// trackingParams are query keys that carry campaign or click tracking and
// never change the document served. Keys that sometimes carry meaning (ref,
// source, si) are left alone: dropping them could merge different pages.
var trackingParams = map[string]bool{
	"fbclid": true, "gclid": true, "dclid": true, "gbraid": true, "wbraid": true,
	"msclkid": true, "yclid": true, "twclid": true, "ttclid": true, "li_fat_id": true,
	"mc_cid": true, "mc_eid": true, "ref_src": true, "ref_url": true,
	"_hsenc": true, "_hsmi": true, "__hssc": true, "__hstc": true, "__hsfp": true,
	"hsctatracking": true, "mkt_tok": true, "igshid": true, "oly_anon_id": true,
	"oly_enc_id": true, "vero_id": true, "vero_conv": true, "_ga": true, "_gl": true,
	"wickedid": true, "rb_clickid": true, "s_cid": true, "cmpid": true,
}

// isTracking reports whether a decoded query key is a tracking parameter.
func isTracking(key string) bool {
	k := strings.ToLower(key)
	return strings.HasPrefix(k, "utm_") || trackingParams[k]
}

// NormalizeURL returns the canonical form of an http or https URL used to
// spot the same page queued twice: scheme and host lowercased, a trailing dot
// on the host and default ports dropped, user info and fragment removed, dot
// segments resolved, percent escapes normalised, the trailing slash removed,
// tracking parameters (utm_*, fbclid, gclid, mc_cid, mc_eid, ref_src, …)
// removed and the remaining query parameters sorted by key (values of a
// repeated key keep their order). The result is a key, not a URL to fetch:
// "https://x.org/" becomes "https://x.org".
func NormalizeURL(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", fmt.Errorf("normalise url: %w: %w", ErrSource, err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("normalise url %s: %w: scheme %q", raw, ErrSource, u.Scheme)
	}
	host := strings.TrimRight(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return "", fmt.Errorf("normalise url %s: %w: no host", raw, ErrSource)
	}
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	var b strings.Builder
	b.WriteString(scheme)
	b.WriteString("://")
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	b.WriteString(host)
	if port != "" {
		b.WriteString(":" + port)
	}
	p := removeDotSegments(normEscapes(u.EscapedPath(), false))
	b.WriteString(strings.TrimRight(p, "/"))
	if q := normQuery(u.RawQuery); q != "" {
		b.WriteByte('?')
		b.WriteString(q)
	}
	return b.String(), nil
}

// normQuery drops tracking parameters and sorts the rest by key. Keys and
// values are re-escaped in one spelling so "a b", "a+b" and "a%20b" agree.
func normQuery(raw string) string {
	type pair struct{ k, v string }
	var pairs []pair
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, hasEq := strings.Cut(part, "=")
		dk := queryUnescape(k)
		if isTracking(dk) {
			continue
		}
		p := pair{k: url.QueryEscape(dk)}
		if hasEq {
			p.v = "=" + url.QueryEscape(queryUnescape(v))
		}
		pairs = append(pairs, p)
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return strings.Compare(a.k, b.k) })
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		parts[i] = p.k + p.v
	}
	return strings.Join(parts, "&")
}

// queryUnescape decodes a query key or value, reading a stray "%" as itself
// so every input has one decoded form.
func queryUnescape(s string) string {
	if d, err := url.QueryUnescape(s); err == nil {
		return d
	}
	d, err := url.QueryUnescape(normEscapes(s, true))
	if err != nil { // cannot happen: normEscapes leaves only valid escapes
		return s
	}
	return d
}

// normEscapes uppercases percent escapes and decodes those of unreserved
// characters (RFC 3986 §6.2.2), so "%7e" and "~" give one key. A stray "%"
// not followed by two hex digits is escaped as "%25".
func normEscapes(s string, query bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			if query && c == '+' {
				b.WriteString("%20")
				continue
			}
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			b.WriteString("%25")
			continue
		}
		d := unhex(s[i+1])<<4 | unhex(s[i+2])
		if isUnreserved(d) {
			b.WriteByte(d)
		} else {
			b.WriteByte('%')
			b.WriteString(strings.ToUpper(s[i+1 : i+3]))
		}
		i += 2
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// removeDotSegments resolves "." and ".." the way a browser does before it
// sends the request (RFC 3986 §5.2.4), keeping empty segments ("a//b").
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if strings.HasPrefix(p, "/") && !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}
